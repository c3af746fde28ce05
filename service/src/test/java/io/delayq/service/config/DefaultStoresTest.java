package io.delayq.service.config;

import io.delayq.core.JobStoreFactory;
import io.delayq.core.archive.JobArchiveFactory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The defaults are found by type name, as a {@code type:} line would be, and a missing type is no exception. */
class DefaultStoresTest {
    @Test
    void theDefaultsAreTheDiscoveredFactoriesOfTheirTypes() {
        assertThat(DefaultStores.store()).get().extracting(f -> f.getClass().getSimpleName())
                .isEqualTo("RedisJobStoreFactory");
        assertThat(DefaultStores.archive()).get().extracting(f -> f.getClass().getSimpleName())
                .isEqualTo("MongoJobArchiveFactory");
    }

    @Test
    void aTypeThatIsNotOnTheClasspathGivesNothing() {
        assertThat(DefaultStores.byType(JobStoreFactory.class, "nosuchstore")).isEmpty();
        assertThat(DefaultStores.byType(JobArchiveFactory.class, "redis")).as("a store type is no archive").isEmpty();
    }
}
