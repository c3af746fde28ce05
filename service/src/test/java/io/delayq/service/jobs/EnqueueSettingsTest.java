package io.delayq.service.jobs;

import io.delayq.core.TopicSettings;
import io.delayq.core.testing.Await;
import io.delayq.core.testing.StoreFixtures;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The settings an enqueue resolves against come from the store at most once a second per topic (not once per
 * request), at once after a change through this instance, and within a second after a change through another.
 */
class EnqueueSettingsTest {
    private static final RedisJobStore STORE = RedisJobStore.connect(TestRedis.sharedUri());

    @AfterAll
    static void close() {
        STORE.close();
    }

    private static TopicSettings attempts(int maxAttempts) {
        return new TopicSettings(null, maxAttempts, null, null, null, null);
    }

    @Test
    void aChangeThroughThisInstanceAppliesToTheNextEnqueue() {
        String topic = StoreFixtures.newTopic();
        EnqueueSettings settings = new EnqueueSettings(STORE);
        STORE.putSettings(topic, attempts(2));
        assertThat(settings.of(topic).maxAttempts()).isEqualTo(2);

        STORE.putSettings(topic, attempts(5));
        settings.changed(topic);
        assertThat(settings.of(topic).maxAttempts()).isEqualTo(5);
    }

    @Test
    void aChangeThroughAnotherInstanceAppliesWithinASecondAndNotOnEveryRequest() {
        String topic = StoreFixtures.newTopic();
        EnqueueSettings settings = new EnqueueSettings(STORE);
        STORE.putSettings(topic, attempts(2));
        assertThat(settings.of(topic).maxAttempts()).isEqualTo(2);

        STORE.putSettings(topic, attempts(7)); // as another instance would: this one is not told
        assertThat(settings.of(topic).maxAttempts()).as("read from this instance's copy").isEqualTo(2);
        Await.until("the other instance's change", Duration.ofSeconds(3), () -> settings.of(topic).maxAttempts() == 7);
    }

    @Test
    void topicsWithoutSettingsGetTheEmptyOnes() {
        assertThat(new EnqueueSettings(STORE).of(StoreFixtures.newTopic())).isEqualTo(TopicSettings.empty());
    }
}
