package io.delayq.core;

import io.dropwizard.util.Duration;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobRulesTest {
    private final JobRules rules = new JobRules(16, 60_000);

    @Test
    void topicsAndIdsUseASmallAlphabet() {
        assertThat(JobRules.checkTopic("orders.eu-1_x")).isEqualTo("orders.eu-1_x");
        assertThat(JobRules.checkId("order:42.a_b-c")).isEqualTo("order:42.a_b-c");
        assertThatThrownBy(() -> JobRules.checkTopic("a:b")).hasMessageContaining("topic 'a:b' is invalid");
        assertThatThrownBy(() -> JobRules.checkTopic("{x}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobRules.checkTopic("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobRules.checkTopic(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobRules.checkTopic("x".repeat(129))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobRules.checkId("a b")).hasMessageContaining("job id 'a b' is invalid");
        assertThatThrownBy(() -> JobRules.checkId("line\nbreak")).isInstanceOf(IllegalArgumentException.class);
    }

    /** The checks are hand-written loops: every UTF-16 unit, and both length bounds, against the documented alphabet. */
    @Test
    void topicsAndIdsAcceptExactlyTheDocumentedAlphabet() {
        Pattern topic = Pattern.compile("[A-Za-z0-9._-]{1,128}");
        Pattern id = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
        for (int unit = Character.MIN_VALUE; unit <= Character.MAX_VALUE; unit++) {
            char c = (char) unit;
            for (String text : List.of(String.valueOf(c), "a" + c, c + "z")) {
                assertThat(accepts(() -> JobRules.checkTopic(text))).as("topic %s", (int) c)
                        .isEqualTo(topic.matcher(text).matches());
                assertThat(accepts(() -> JobRules.checkId(text))).as("id %s", (int) c)
                        .isEqualTo(id.matcher(text).matches());
            }
        }
        assertThat(JobRules.checkTopic("t".repeat(128))).hasSize(128);
        assertThat(JobRules.checkId(":".repeat(128))).hasSize(128);
        assertThat(accepts(() -> JobRules.checkId("i".repeat(129)))).isFalse();
    }

    /** Names from clients may not be only dots (path steps); stored names are still what the store can hold. */
    @Test
    void clientNamesMadeOnlyOfDotsAreRefusedStoredOnesAreNot() {
        for (String dots : List.of(".", "..", "...", ".".repeat(128))) {
            assertThatThrownBy(() -> JobRules.checkClientTopic(dots))
                    .hasMessageContaining("topic '" + (dots.length() > 64 ? dots.substring(0, 64) + "…" : dots))
                    .hasMessageContaining("only of dots");
            assertThatThrownBy(() -> JobRules.checkClientId(dots)).hasMessageContaining("job id");
            assertThatThrownBy(() -> JobRules.checkPathName("tenant", dots)).hasMessageStartingWith("tenant '");
            assertThat(JobRules.checkTopic(dots)).as("a store still holds %s", dots).isEqualTo(dots);
            assertThat(JobRules.checkId(dots)).isEqualTo(dots);
        }
        for (String name : List.of("a.", ".a", "..a", "a..b", "._", "-.", ":..")) {
            assertThat(JobRules.checkClientId(name)).isEqualTo(name);
        }
        assertThat(JobRules.checkClientTopic(".x")).isEqualTo(".x");
        assertThatThrownBy(() -> JobRules.checkClientTopic("a b")).hasMessageContaining("is invalid");
        assertThat(JobRules.isOnlyDots("")).isFalse();
        assertThat(JobRules.isOnlyDots(null)).isFalse();
    }

    private static boolean accepts(Runnable check) {
        try {
            check.run();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    @Test
    void payloadsAreLimitedInUtf8Bytes() {
        assertThat(rules.checkPayload("{\"a\":1}")).isEqualTo("{\"a\":1}");
        assertThatThrownBy(() -> rules.checkPayload("\"ééééééééé\"")).hasMessageContaining("limit is 16 bytes");
        assertThatThrownBy(() -> rules.checkPayload(null)).hasMessageContaining("payload is required");
    }

    @Test
    void delaysAreBounded() {
        assertThat(rules.checkDelay(0)).isZero();
        assertThat(rules.checkDelay(60_000)).isEqualTo(60_000);
        assertThatThrownBy(() -> rules.checkDelay(-1)).hasMessageContaining("0 or more");
        assertThatThrownBy(() -> rules.checkDelay(60_001)).hasMessageContaining("maxDelay");
        assertThat(rules.checkRunAt(1_000, 5_000)).as("a past runAt means now").isEqualTo(1_000);
        assertThatThrownBy(() -> rules.checkRunAt(70_001, 10_000)).hasMessageContaining("maxDelay");
        assertThat(JobRules.defaults().maxPayloadBytes()).isEqualTo(64 * 1024);
    }

    @Test
    void runAtFarInThePastIsNowNotFarAhead() {
        assertThat(rules.checkRunAt(Long.MIN_VALUE + 1, 1_700_000_000_000L)).isEqualTo(Long.MIN_VALUE + 1);
        assertThatThrownBy(() -> rules.checkRunAt(Long.MAX_VALUE, -1_000)).hasMessageContaining("maxDelay");
    }

    /** A zero first wait retries for ever at once; a multiplier past 10 jumps to the cap: refused, bounds named. */
    @Test
    void anExponentialBackoffMustMakeSense() {
        assertThatThrownBy(() -> rules.checkBackoff(new Backoff.Exponential(Duration.seconds(0), 2, Duration.seconds(1), 0)))
                .hasMessageStartingWith("backoff.initial is 0 seconds").hasMessageContaining("at least 1ms");
        for (double multiplier : new double[] {10.000001, 1.7e308, Double.MAX_VALUE}) {
            assertThatThrownBy(() -> rules.checkBackoff(new Backoff.Exponential(Duration.seconds(1), multiplier,
                    Duration.seconds(60), 0))).hasMessageStartingWith("backoff.multiplier is " + multiplier)
                    .hasMessageContaining("from 1.0 to 10.0");
        }
        for (double multiplier : new double[] {1.0, 10.0}) {
            Backoff edge = new Backoff.Exponential(Duration.milliseconds(1), multiplier, Duration.seconds(60), 0);
            assertThat(rules.checkBackoff(edge)).isSameAs(edge);
        }
        Backoff zeros = new Backoff.Schedule(List.of(Duration.seconds(0)));
        assertThat(rules.checkBackoff(zeros)).as("a schedule may say 'at once' on purpose").isSameAs(zeros);
    }

    @Test
    void backoffWaitsAreBoundedByMaxDelay() {
        Backoff tooFar = new Backoff.Schedule(List.of(Duration.seconds(1), Duration.days(1_000_000_000)));
        assertThatThrownBy(() -> rules.checkBackoff(tooFar))
                .hasMessageContaining("backoff.delays[1]").hasMessageContaining("limits.maxDelay");
        assertThatThrownBy(() -> rules.checkBackoff(new Backoff.Exponential(Duration.seconds(1), 2, Duration.hours(1), 0)))
                .hasMessageContaining("backoff.max").hasMessageContaining("limits.maxDelay");
        assertThatThrownBy(() -> rules.checkBackoff(new Backoff.Exponential(Duration.minutes(2), 2, Duration.minutes(2), 0)))
                .hasMessageContaining("backoff.initial");
        Backoff fits = new Backoff.Exponential(Duration.seconds(1), 2, Duration.seconds(60), 0.5);
        assertThat(rules.checkBackoff(fits)).isSameAs(fits);
        assertThat(rules.checkBackoff(null)).isNull();
    }

    @Test
    void anExponentialMaxBelowItsInitialIsRefused() {
        assertThatThrownBy(() -> rules.checkBackoff(new Backoff.Exponential(Duration.seconds(10), 2, Duration.seconds(1), 0)))
                .hasMessageContaining("backoff.max").hasMessageContaining("backoff.initial");
    }

    @Test
    void aScheduleHasNoMoreDelaysThanAttempts() {
        JobRules three = new JobRules(1024, 60_000, 3, 4, 100, 4096);
        Backoff four = new Backoff.Schedule(Collections.nCopies(4, Duration.seconds(1)));
        assertThatThrownBy(() -> three.checkBackoff(four)).hasMessageContaining("backoff.delays has 4 delays")
                .hasMessageContaining("limits.maxAttempts");
        assertThat(three.checkBackoff(new Backoff.Schedule(Collections.nCopies(3, Duration.seconds(1))))).isNotNull();
    }

    @Test
    void callbackHeadersAreBoundedInCountAndBytes() {
        JobRules small = new JobRules(1024, 60_000, 3, 2, 10, 4096);
        assertThatThrownBy(() -> small.checkCallbackHeaders(Map.of("a", "1", "b", "2", "c", "3")))
                .hasMessageContaining("at most 2").hasMessageContaining("limits.maxCallbackHeaders");
        assertThatThrownBy(() -> small.checkCallbackHeaders(Map.of("name", "valueé")))
                .hasMessageContaining("11 bytes").hasMessageContaining("limits.maxCallbackHeaderBytes");
        assertThat(small.checkCallbackHeaders(Map.of("name", "value"))).hasSize(1);
    }

    @Test
    void theWholeJobIsBounded() {
        JobRules small = new JobRules(100, 60_000, 3, 2, 1000, 200);
        NewJob fits = new NewJob("t", "i", "\"" + "p".repeat(90) + "\"", 0L, null, 1, null,
                new Callback("http://h/", Map.of()), null, false, Delivery.PUSH);
        assertThat(small.checkJobSize(fits)).isSameAs(fits);
        NewJob tooBig = new NewJob("t", "i", "\"" + "p".repeat(90) + "\"", 0L, null, 1, null,
                new Callback("http://h/" + "u".repeat(100), Map.of()), null, false, Delivery.PUSH);
        assertThatThrownBy(() -> small.checkJobSize(tooBig)).hasMessageContaining("limits.maxJobBytes")
                .hasMessageContaining("limit is 200 bytes");
        assertThatThrownBy(() -> new JobRules(100, 60_000, 3, 2, 1000, 99)).hasMessageContaining("maxJobBytes");
        assertThat(JobRules.defaults().maxJobBytes()).isEqualTo(128 * 1024);
    }

    @Test
    void messagesQuoteAtMost64CharactersOfTheInput() {
        assertThat(JobRules.quote("short")).isEqualTo("'short'");
        assertThat(JobRules.quote("x".repeat(100_000))).isEqualTo("'" + "x".repeat(64) + "…' (100000 characters)");
        assertThat(JobRules.quote(null)).isEqualTo("null");
        assertThatThrownBy(() -> JobRules.checkId("i".repeat(100_000)))
                .hasMessageContaining("(100000 characters)")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300));
        assertThatThrownBy(() -> JobRules.checkTopic("t".repeat(100_000)))
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300));
    }

    @Test
    void utf8LengthIsWhatGetBytesGives() {
        for (String text : List.of("", "plain", "caf\u00e9", "\u20ac and \u4e2d", "\ud83d\ude00 pair",
                "lone \ud83d high", "lone \ude00 low", "\ude00\ud83d reversed", "end \ud83d")) {
            assertThat(JobRules.utf8(text)).as(text)
                    .isEqualTo(text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        }
    }

    @Test
    void aCallbackNearTheJobLimitIsMeasuredExactly() {
        // the limit falls between the callback's real JSON size and the bound used to skip encoding it
        JobRules rules = new JobRules(1_000, 60_000, 25, 20, 8_192, 1_000);
        String url = "https://example.com/" + "a".repeat(150);
        Callback callback = new Callback(url, Map.of("X-Key", "v".repeat(40)));
        int callbackJson = "{\"url\":\"\",\"headers\":{\"X-Key\":\"\"}}".length() + url.length() + 40;
        int payload = 1_000 - callbackJson - "t".length() - "id".length();
        NewJob fits = new NewJob("t", "id", "\"" + "p".repeat(payload - 2) + "\"", 0L, null, 3, null, callback, null,
                false, Delivery.PUSH);
        NewJob over = new NewJob("t", "id", "\"" + "p".repeat(payload - 1) + "\"", 0L, null, 3, null, callback, null,
                false, Delivery.PUSH);

        assertThat(rules.checkJobSize(fits)).isSameAs(fits);
        assertThatThrownBy(() -> rules.checkJobSize(over)).hasMessageContaining("the job is 1001 bytes");
    }

    @Test
    void producersCannotUseTheSchedulesIdsButEveryoneMayNameThem() {
        String fire = io.delayq.core.schedule.FireIds.of("nightly", 1_795_756_277_000L);
        assertThat(fire).isEqualTo(":nightly:1795756277000");
        assertThatThrownBy(() -> JobRules.checkProducerId(fire)).hasMessageContaining("reserved for the jobs of"
                + " recurring schedules");
        assertThat(JobRules.checkClientId(fire)).isEqualTo(fire); // read, cancel, replay by id
        assertThat(JobRules.checkProducerId("a:b")).isEqualTo("a:b");
        String longName = "n".repeat(JobRules.MAX_NAME_CHARS);
        String cut = io.delayq.core.schedule.FireIds.of(longName, 1L);
        assertThat(cut.length()).isLessThanOrEqualTo(io.delayq.core.schedule.FireIds.MAX_CHARS);
        assertThat(JobRules.checkId(cut)).isNotEqualTo(io.delayq.core.schedule.FireIds.of("n".repeat(JobRules.MAX_NAME_CHARS - 1) + "m", 1L));
    }
}
