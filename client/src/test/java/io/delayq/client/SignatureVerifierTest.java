package io.delayq.client;

import io.delayq.client.SignatureVerifier.InvalidSignatureException;
import io.delayq.client.SignatureVerifier.Kind;
import io.delayq.client.SignatureVerifier.Verified;
import io.delayq.service.DelayqConfiguration;
import io.delayq.testing.CallbackReceiver;
import io.delayq.testing.CallbackReceiver.Received;
import io.delayq.testing.RequiresProgram;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Receivers' checks of {@code Delayq-Signature} (scheme v2) against real requests from the running service: a
 * callback and a dead notice caught by a real receiver are verified by {@link SignatureVerifier} and by the Python and
 * Node snippets of the documentation ({@code src/test/resources/verify/verify.py} and {@code verify.js}), and every
 * tampered form is refused by all three: another id, attempt or topic, the other kind, another secret, an altered
 * body, a stale time. The snippets need {@code python3} and {@code node} (Debian packages {@code python3} and
 * {@code nodejs}, which CI installs); without them their tests are skipped, saying so.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SignatureVerifierTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();
    static final CallbackReceiver RECEIVER = new CallbackReceiver();
    private static final String SECRET = "client-test-secret"; // client-test-config.yml
    private static Received callback;
    private static Received notice;

    /** One request as a receiver got it, and the kind its endpoint expects. */
    private record Case(String name, Kind kind, Map<String, String> headers, byte[] body, long now, boolean genuine) {
    }

    @BeforeAll
    static void catchACallbackAndADeadNotice() {
        DelayqClient client = TestService.client(APP);
        String topic = TestService.topic();
        client.schedule(topic, JobRequest.builder().id("paid-1").payload(Map.of("order", 1, "note", "caf\u00e9"))
                .callback(RECEIVER.url("/hooks/" + topic)).build());
        client.schedule(topic, JobRequest.builder().id("paid-2").payload(Map.of("order", 2)).maxAttempts(1)
                .callback(RECEIVER.url("/fail/" + topic)).onDead(RECEIVER.url("/dead/" + topic)).build());
        callback = RECEIVER.await(r -> r.path().equals("/hooks/" + topic), 1, Duration.ofSeconds(20)).get(0);
        notice = RECEIVER.await(r -> r.path().equals("/dead/" + topic), 1, Duration.ofSeconds(30)).get(0);
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.close();
    }

    @Test
    void genuineRequestsVerifyAndSayWhatTheyVouchFor() {
        SignatureVerifier verifier = SignatureVerifier.of(SECRET);
        Verified c = verifier.verifyCallback(callback::header, callback.body());
        assertThat(c.kind()).isEqualTo(Kind.CALLBACK);
        assertThat(c.topic()).isEqualTo(callback.topic());
        assertThat(c.id()).isEqualTo("paid-1");
        assertThat(c.attempt()).isEqualTo(1);
        assertThat(c.signedAt()).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(1));
        Verified n = verifier.verifyDeadNotice(notice.headers(), notice.body());
        assertThat(n.kind()).isEqualTo(Kind.DEAD_NOTICE);
        assertThat(n.id()).isEqualTo("paid-2");
        assertThat(n.attempt()).isEqualTo(1);
        assertThat(SignatureVerifier.of("old-secret", SECRET).verifyCallback(callback::header, callback.body()))
                .as("any of several secrets, for a rotation").isEqualTo(c);
    }

    @Test
    void theJavaVerifierRefusesEveryTamperedForm() {
        for (Case test : cases()) {
            SignatureVerifier verifier = SignatureVerifier.of(test.name().equals("another secret") ? "nope" : SECRET)
                    .clock(Clock.fixed(Instant.ofEpochSecond(test.now()), ZoneOffset.UTC));
            if (test.genuine()) {
                assertThat(verifier.verify(test.kind(), test.headers(), test.body())).as(test.name()).isNotNull();
            } else {
                assertThatThrownBy(() -> verifier.verify(test.kind(), test.headers(), test.body()))
                        .as(test.name()).isInstanceOf(InvalidSignatureException.class);
            }
        }
    }

    @Test
    @RequiresProgram(value = "python3", debianPackage = "python3")
    void thePythonSnippetAgrees(@TempDir Path dir) {
        for (Case test : cases()) {
            Path script = resource("verify/verify.py", dir);
            assertThat(run(dir, test, "python3", script)).as("python3: %s", test.name()).isEqualTo(test.genuine());
        }
    }

    @Test
    @RequiresProgram(value = "node", debianPackage = "nodejs")
    void theNodeSnippetAgrees(@TempDir Path dir) {
        for (Case test : cases()) {
            Path script = resource("verify/verify.js", dir);
            assertThat(run(dir, test, "node", script)).as("node: %s", test.name()).isEqualTo(test.genuine());
        }
    }

    /** The genuine requests, and each tampered with in one way; header names lower-case, as the receiver keeps them. */
    private static List<Case> cases() {
        long now = Instant.now().getEpochSecond();
        Map<String, String> c = callback.headers();
        Map<String, String> n = notice.headers();
        byte[] altered = callback.bodyText().replace("1", "2").getBytes(StandardCharsets.UTF_8);
        return List.of(
                new Case("the callback", Kind.CALLBACK, c, callback.body(), now, true),
                new Case("the dead notice", Kind.DEAD_NOTICE, n, notice.body(), now, true),
                new Case("another Delayq-Id", Kind.CALLBACK, with(c, "delayq-id", "paid-9"), callback.body(), now, false),
                new Case("another attempt", Kind.CALLBACK, with(c, "delayq-attempt", "2"), callback.body(), now, false),
                new Case("another topic", Kind.CALLBACK, with(c, "delayq-topic", "another-team"), callback.body(), now,
                        false),
                new Case("a callback as a dead notice", Kind.DEAD_NOTICE,
                        with(c, "delayq-notice-attempt", "1"), callback.body(), now, false),
                new Case("a dead notice as a callback", Kind.CALLBACK, with(n, "delayq-attempt", "1"), notice.body(),
                        now, false),
                new Case("another secret", Kind.CALLBACK, c, callback.body(), now, false),
                new Case("an altered body", Kind.CALLBACK, c, altered, now, false),
                new Case("six minutes later", Kind.CALLBACK, c, callback.body(), now + 360, false),
                new Case("no v2", Kind.CALLBACK, with(c, "delayq-signature",
                        c.get("delayq-signature").replace("v2=", "v1=")), callback.body(), now, false));
    }

    private static Map<String, String> with(Map<String, String> headers, String name, String value) {
        Map<String, String> copy = new HashMap<>(headers);
        copy.put(name, value);
        return copy;
    }

    /** Runs a snippet's command line on one case: true when it printed the verified fields and exited 0. */
    private static boolean run(Path dir, Case test, String program, Path script) {
        try {
            Path headers = dir.resolve("headers.txt");
            StringBuilder lines = new StringBuilder();
            test.headers().forEach((k, v) -> lines.append(k).append(": ").append(v).append('\n'));
            Files.writeString(headers, lines);
            Path body = Files.write(dir.resolve("body.bin"), test.body());
            String secret = test.name().equals("another secret") ? "nope" : SECRET;
            Process p = new ProcessBuilder(program, script.toString(), test.kind() == Kind.CALLBACK ? "callback" : "dead",
                    secret, headers.toString(), body.toString(), Long.toString(test.now()))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            if (p.exitValue() == 0) {
                assertThat(out).as(test.name()).contains("\"id\"");
                return true;
            }
            assertThat(out).as("%s: %s", test.name(), out).startsWith("invalid: ");
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path resource(String name, Path dir) {
        try (var in = SignatureVerifierTest.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            Path file = dir.resolve(Path.of(name).getFileName());
            Files.write(file, in.readAllBytes());
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
