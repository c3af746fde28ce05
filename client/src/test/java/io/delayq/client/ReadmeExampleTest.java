package io.delayq.client;

import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static io.delayq.client.WorkerTest.await;
import static org.assertj.core.api.Assertions.assertThat;

/** The worker example of client/README.md, line for line but for the service's address, token and topic name. */
@ExtendWith(DropwizardExtensionsSupport.class)
class ReadmeExampleTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    @Test
    void theReadmeWorkerRunsAsShown() throws Exception {
        String baseUri = "http://localhost:" + APP.getLocalPort();
        String token = TestService.TOKEN;
        String emails = "emails-" + java.util.UUID.randomUUID(); // every test class works in its own topics
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        Thread hook;
        Worker worker;
        try {
            // ---- from README.md
            record Email(String to, String subject) {}

            DelayqClient client = DelayqClient.builder().baseUri(baseUri).token(token).build();
            worker = Worker.builder(client, emails)
                    .concurrency(4)
                    .handler(job -> {
                        Email email = job.payloadAs(Email.class);
                        if (email.to().endsWith(".invalid")) throw Retry.in(Duration.ofSeconds(30));   // put it back for later
                        System.out.println("attempt " + job.attempt() + ": sending '" + email.subject() + "' to " + email.to());
                    })
                    .build().start();
            client.schedule(emails, JobRequest.builder().delay(Duration.ofSeconds(2)).payload(new Email("ada@example.com", "Welcome")).build());
            hook = new Thread(worker::close);
            Runtime.getRuntime().addShutdownHook(hook);
            // ---- end of the example

            await(() -> worker.acked() >= 1, Duration.ofSeconds(10));
        } finally {
            System.setOut(stdout);
        }
        worker.close();
        Runtime.getRuntime().removeShutdownHook(hook);

        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("attempt 1: sending 'Welcome' to ada@example.com");
    }
}
