package io.delayq.client;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The methods issue 29 added for the operations the client lacked, against the real service: who am I, leases in
 * flight, history and forecast, failure groups and the dead-letter filters, the bulk operations list, the audit log.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class InsightClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    @Test
    void meNamesTheTokenAndItsRoles() {
        Caller me = TestService.client(APP).me();

        assertThat(me.name()).isEqualTo("everything");
        assertThat(me.roles()).contains("producer", "consumer", "admin");
        assertThat(me.tenant()).isNull();
    }

    @Test
    void aJobsWayShowsInLeasesForecastHistoryGroupsAndAudit() throws Exception {
        DelayqClient client = TestService.client(APP);
        String topic = TestService.topic();
        client.schedule(topic, JobRequest.builder().id("later").delay(Duration.ofMinutes(10)).payload(1).build());
        client.schedule(topic, JobRequest.builder().id("now-1").maxAttempts(1)
                .payload(Json.DEFAULT.readTree("{\"order\":{\"id\":7}}")).build());

        assertThat(client.forecast(topic, 60).counts().stream().mapToLong(Long::longValue).sum())
                .as("'later' falls due within the hour").isEqualTo(1);
        LeasedJob leased = client.lease(topic, 1, Duration.ofSeconds(5), Duration.ofMinutes(1)).get(0);
        List<LeaseInFlight> inFlight = client.leasesInFlight(topic, 10);
        assertThat(inFlight).singleElement().satisfies(l -> {
            assertThat(l.id()).isEqualTo("now-1");
            assertThat(l.lane()).isEqualTo("PULL");
            assertThat(l.attempt()).isEqualTo(1);
            assertThat(l.deadline()).isEqualTo(leased.leaseDeadline());
        });

        client.nack(leased, "cannot parse order 7");
        DeadLetterQuery byPayload = DeadLetterQuery.topic(topic).idPrefix("now-").payload("order.id", "7");
        Await.until("the archive has the dead letter", Duration.ofSeconds(15),
                () -> !client.deadLetters(byPayload).items().isEmpty());
        assertThat(client.deadLetters(DeadLetterQuery.topic(topic).idPrefix("later")).items()).isEmpty();
        assertThat(client.deadLetters(DeadLetterQuery.topic(topic).payload("order.id", "8")).items()).isEmpty();

        List<FailureGroup> groups = client.failureGroups(DeadLetterQuery.topic(topic));
        assertThat(groups).singleElement().satisfies(g -> {
            assertThat(g.count()).isEqualTo(1);
            assertThat(g.example().id()).isEqualTo("now-1");
            assertThat(g.signature().id()).matches("[0-9a-f]{12}");
        });
        String group = groups.get(0).signature().id();
        assertThat(client.deadLetters(DeadLetterQuery.topic(topic).group(group)).items())
                .extracting(DeadLetter::id).containsExactly("now-1");

        Await.until("the history counts both enqueues", Duration.ofSeconds(15), () -> client.history(topic, 5)
                .minutes().stream().mapToLong(TopicHistory.Minute::enqueued).sum() == 2);
        assertThat(client.history(topic, 5).topic()).isEqualTo(topic);

        client.purgeDeadLetter(topic, "now-1");
        AuditPage audit = client.audit(50, null);
        assertThat(audit.items()).anySatisfy(e -> {
            assertThat(e.action()).isEqualTo("dead-letter.purge");
            assertThat(e.target()).contains(topic);
            assertThat(e.actor()).isEqualTo("everything");
        });

        JobOperation cancel = JobOperation.cancel(topic);
        BulkOperationInfo started = client.startJobOperation(cancel, client.countJobs(cancel));
        assertThat(client.bulkOperations(20)).extracting(BulkOperationInfo::id).contains(started.id());
    }
}
