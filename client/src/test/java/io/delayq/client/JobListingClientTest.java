package io.delayq.client;

import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A topic's jobs through the client: listed page by page with filters, then cancelled and moved in bulk. */
@ExtendWith(DropwizardExtensionsSupport.class)
class JobListingClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    private DelayqClient client;
    private String topic;

    @BeforeEach
    void setUp() {
        client = TestService.client(APP);
        topic = TestService.topic();
    }

    @Test
    void listsJobsByPayloadAndActsOnThemInBulk() throws Exception {
        Instant base = Instant.now().plus(Duration.ofDays(1));
        for (int i = 0; i < 12; i++) {
            client.schedule(topic, JobRequest.builder().id("j-" + i).runAt(base.plusSeconds(i))
                    .payload(java.util.Map.of("group", i % 3 == 0 ? "wrong" : "right")).build());
        }
        List<JobInfo> all = new ArrayList<>();
        JobPage page = client.listJobs(JobQuery.topic(topic).limit(5));
        all.addAll(page.items());
        while (page.hasNext()) {
            page = client.listJobs(JobQuery.topic(topic).limit(5).cursor(page.nextCursor()));
            all.addAll(page.items());
        }
        assertThat(all).extracting(JobInfo::id).hasSize(12).startsWith("j-0", "j-1", "j-2");

        JobPage wrong = client.listJobs(JobQuery.topic(topic).payload("group", "wrong").limit(100));
        assertThat(wrong.items()).extracting(JobInfo::id).containsExactly("j-0", "j-3", "j-6", "j-9");

        JobOperation cancel = JobOperation.cancel(topic).payload("group", "wrong");
        long n = client.countJobs(cancel);
        assertThat(n).isEqualTo(4);
        assertThatThrownBy(() -> client.startJobOperation(cancel, 3)).isInstanceOf(ConflictException.class);
        BulkOperationInfo op = client.startJobOperation(cancel, n);
        assertThat(op.target()).isEqualTo("jobs");
        assertThat(op.kind()).isEqualTo("cancel");
        long deadline = System.currentTimeMillis() + 20_000;
        while (!op.finished() && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
            op = client.bulkOperation(op.id());
        }
        assertThat(op.state()).isEqualTo("done");
        assertThat(op.done()).isEqualTo(4);
        assertThat(client.get(topic, "j-3").state()).isEqualTo("CANCELLED");
        assertThat(client.listJobs(JobQuery.topic(topic).states("cancelled")).items()).hasSize(4);

        BulkOperationInfo shift = client.startJobOperation(JobOperation.shift(topic, Duration.ofHours(1))
                .idPrefix("j-1"), 3);
        while (!shift.finished() && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
            shift = client.bulkOperation(shift.id());
        }
        assertThat(shift.done()).as("j-1, j-10, j-11").isEqualTo(3);
        assertThat(client.get(topic, "j-1").runAt()).isEqualTo(base.plusSeconds(1).plus(Duration.ofHours(1))
                .truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
    }
}
