package io.delayq.core;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class JobIdsTest {
    @Test
    void idsAreValidUniqueVersion7Uuids() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            ids.add(JobIds.newId());
        }
        assertThat(new HashSet<>(ids)).hasSize(ids.size());
        for (String id : ids.subList(0, 100)) {
            UUID uuid = UUID.fromString(id);
            assertThat(uuid.version()).isEqualTo(7);
            assertThat(uuid.variant()).isEqualTo(2);
            assertThat(JobRules.checkId(id)).isEqualTo(id);
        }
    }

    @Test
    void idsSortByCreationTime() throws InterruptedException {
        String earlier = JobIds.newId();
        Thread.sleep(3);
        String later = JobIds.newId();
        assertThat(earlier.compareTo(later)).isNegative();
    }
}
