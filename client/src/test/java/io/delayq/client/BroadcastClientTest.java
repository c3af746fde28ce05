package io.delayq.client;

import io.delayq.core.testing.Await;
import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Broadcast jobs reach every event-stream subscriber on every service instance sharing one Redis. */
@ExtendWith(DropwizardExtensionsSupport.class)
class BroadcastClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> ONE = TestService.app();
    static final DropwizardAppExtension<DelayqConfiguration> TWO = TestService.app();

    record News(String headline) {
    }

    @Test
    void aBroadcastReachesSubscribersOnTwoInstances() throws Exception {
        String topic = TestService.topic();
        DelayqClient one = TestService.client(ONE);
        DelayqClient two = TestService.client(TWO);
        List<BroadcastEvent> heardOnOne = new CopyOnWriteArrayList<>();
        List<BroadcastEvent> heardOnTwo = new CopyOnWriteArrayList<>();
        List<BroadcastEvent> heardElsewhere = new CopyOnWriteArrayList<>();

        try (EventSubscription a = one.subscribe(topic, heardOnOne::add, null);
             EventSubscription b = two.subscribe(topic, heardOnTwo::add, null);
             EventSubscription c = two.subscribe(TestService.topic(), heardElsewhere::add, null)) {
            JobInfo job = one.schedule(topic, JobRequest.builder().id("news-1").delay(Duration.ofMillis(300))
                    .broadcast(true).payload(new News("delayq ships")).build());
            assertThat(job.broadcast()).isTrue();

            Await.until("both instances heard the broadcast", Duration.ofSeconds(10),
                    () -> heardOnOne.size() == 1 && heardOnTwo.size() == 1);
            Thread.sleep(300);

            for (List<BroadcastEvent> heard : List.of(heardOnOne, heardOnTwo)) {
                assertThat(heard).singleElement().satisfies(event -> {
                    assertThat(event.id()).isEqualTo("news-1");
                    assertThat(event.topic()).isEqualTo(topic);
                    assertThat(event.runAt()).isEqualTo(job.runAt());
                    assertThat(event.payloadAs(News.class)).isEqualTo(new News("delayq ships"));
                });
            }
            assertThat(heardElsewhere).isEmpty();
        }
    }

    @Test
    void subscribingNeedsTheConsumerRole() {
        DelayqClient producer = TestService.client(ONE, TestService.PRODUCER_ONLY);

        assertThatThrownBy(() -> producer.subscribe(TestService.topic(), e -> { }, null))
                .isInstanceOfSatisfying(UnauthorizedException.class, e -> assertThat(e.status()).isEqualTo(403));
    }

    @Test
    void closingASubscriptionTellsItsListener() throws Exception {
        List<Object> closed = new CopyOnWriteArrayList<>();
        EventSubscription subscription = TestService.client(ONE).subscribe(TestService.topic(), e -> { },
                error -> closed.add(error == null ? "clean" : error));

        subscription.close();

        assertThat(closed).containsExactly("clean");
    }
}
