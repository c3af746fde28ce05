package io.delayq.client;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The worker example of the root README.md (and its copy in client/README.md) runs as shown.
 *
 * <p>{@link #theReadmeWorkerRunsAsShown()} runs the lines between the {@code README example} markers below;
 * {@link #theReadmesShowTheLinesThisTestRuns()} reads this source file and both READMEs and checks that the
 * {@code ```java} block after each README's {@value #README_MARKER} comment is those lines, word for word, but for
 * the service's address, token and topic name ({@link #AS_RUN}). Edit the README and this test together.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ReadmeExampleTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    /** The HTML comment that precedes the checked {@code ```java} block in each README. */
    static final String README_MARKER = "<!-- ReadmeExampleTest runs these lines";
    static final List<String> READMES = List.of("README.md", "client/README.md");
    static final String THIS_SOURCE = "client/src/test/java/io/delayq/client/ReadmeExampleTest.java";
    static final String BEGIN = "// ---- README example: begin";
    static final String END = "// ---- README example: end";
    /** What the README says the worker prints. */
    static final String PRINTED = "attempt 1: sending 'Welcome' to ada@example.com";

    /** The only differences allowed: the README's literal → what this test runs instead. */
    static final Map<String, String> AS_RUN = Map.of(
            "\"http://localhost:8080\"", "baseUri",
            "\"dev-token\"", "token",
            "\"emails\"", "emails");

    @Test
    void theReadmeWorkerRunsAsShown() throws Exception {
        String baseUri = "http://localhost:" + APP.getLocalPort();
        String token = TestService.TOKEN;
        String emails = "emails-" + java.util.UUID.randomUUID(); // every test class works in its own topics
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            // ---- README example: begin
            record Email(String to, String subject) {}

            DelayqClient client = DelayqClient.builder().baseUri(baseUri).token(token).build();
            Worker worker = Worker.builder(client, emails)
                    .concurrency(4)
                    .handler(job -> {
                        Email email = job.payloadAs(Email.class);
                        if (email.to().endsWith(".invalid")) throw Retry.in(Duration.ofSeconds(30));   // put it back for later
                        System.out.println("attempt " + job.attempt() + ": sending '" + email.subject() + "' to " + email.to());
                    })
                    .build().start();
            client.schedule(emails, JobRequest.builder().delay(Duration.ofSeconds(2)).payload(new Email("ada@example.com", "Welcome")).build());
            Runtime.getRuntime().addShutdownHook(new Thread(worker::close));
            // ---- README example: end

            // The hook stays registered; once the worker is closed, close() at JVM exit does nothing.
            try {
                Await.until("the worker acked the job", Duration.ofSeconds(10), () -> worker.acked() >= 1);
            } finally {
                worker.close();
            }
        } finally {
            System.setOut(stdout);
        }

        assertThat(printed.toString(StandardCharsets.UTF_8)).contains(PRINTED);
    }

    @Test
    void theReadmesShowTheLinesThisTestRuns() throws IOException {
        Path root = repositoryRoot();
        String run = String.join("\n", between(Files.readAllLines(root.resolve(THIS_SOURCE)), BEGIN, END));
        assertThat(run).as("the example run by theReadmeWorkerRunsAsShown").contains("Worker.builder(");

        for (String readme : READMES) {
            String text = Files.readString(root.resolve(readme));
            String shown = String.join("\n", asRun(javaBlockAfterMarker(text, readme)));
            assertThat(shown)
                    .as("the ```java block after '%s…' in %s, with %s replaced as the test runs it, must be the lines"
                            + " between '%s' and '%s' in %s: change both together", README_MARKER, readme, AS_RUN.keySet(),
                            BEGIN, END, THIS_SOURCE)
                    .isEqualTo(run);
            assertThat(text).as("%s says what the worker prints", readme).contains("`" + PRINTED + "`");
        }
    }

    /** The directory holding both READMEs: the working directory (client/ under Maven) or one above it. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(THIS_SOURCE)) && Files.isRegularFile(dir.resolve("README.md"))) {
                return dir;
            }
        }
        throw new AssertionError("no directory at or above " + Path.of("").toAbsolutePath() + " holds " + THIS_SOURCE);
    }

    /** The lines strictly between the markers, without their common indentation and trailing blanks. */
    private static List<String> between(List<String> source, String begin, String end) {
        int from = indexOfOnly(source, begin, THIS_SOURCE);
        int to = indexOfOnly(source, end, THIS_SOURCE);
        assertThat(to).as("'%s' comes after '%s' in %s", end, begin, THIS_SOURCE).isGreaterThan(from);
        return normalized(source.subList(from + 1, to));
    }

    /** The body of the {@code ```java} block that follows the marker comment (blank lines between are allowed). */
    private static List<String> javaBlockAfterMarker(String markdown, String readme) {
        List<String> lines = markdown.lines().toList();
        int marker = indexOfOnly(lines, README_MARKER, readme);
        int fence = marker + 1;
        while (fence < lines.size() && lines.get(fence).isBlank()) {
            fence++;
        }
        assertThat(fence < lines.size() ? lines.get(fence).strip() : "(end of file)")
                .as("the line after '%s…' in %s opens the example", README_MARKER, readme)
                .isEqualTo("```java");
        int close = fence + 1;
        while (close < lines.size() && !lines.get(close).strip().equals("```")) {
            close++;
        }
        assertThat(close).as("the ```java block after '%s…' in %s is closed", README_MARKER, readme)
                .isLessThan(lines.size());
        return normalized(lines.subList(fence + 1, close));
    }

    /** The README's lines with its address, token and topic replaced by what the test uses. */
    private static List<String> asRun(List<String> shown) {
        List<String> out = new ArrayList<>(shown.size());
        for (String line : shown) {
            for (Map.Entry<String, String> e : AS_RUN.entrySet()) {
                line = line.replace(e.getKey(), e.getValue());
            }
            out.add(line);
        }
        return out;
    }

    private static int indexOfOnly(List<String> lines, String text, String file) {
        int found = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().startsWith(text)) {
                assertThat(found).as("'%s' appears once in %s", text, file).isEqualTo(-1);
                found = i;
            }
        }
        assertThat(found).as("'%s' appears in %s", text, file).isNotEqualTo(-1);
        return found;
    }

    /** Trailing spaces and the common leading indentation removed; leading and trailing blank lines dropped. */
    private static List<String> normalized(List<String> lines) {
        List<String> stripped = lines.stream().map(String::stripTrailing).toList();
        int first = 0;
        int last = stripped.size();
        while (first < last && stripped.get(first).isEmpty()) {
            first++;
        }
        while (last > first && stripped.get(last - 1).isEmpty()) {
            last--;
        }
        List<String> body = stripped.subList(first, last);
        int indent = body.stream().filter(l -> !l.isEmpty())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return body.stream().map(l -> l.isEmpty() ? l : l.substring(indent)).toList();
    }
}
