package io.delayq.mongo;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

class JobIdFilterTest {
    @Test
    void everyKeyAddedIsFoundAndFewOthersAre() {
        JobIdFilter filter = new JobIdFilter();
        for (int i = 0; i < 100_000; i++) {
            filter.add("orders/o-" + i);
        }
        for (int i = 0; i < 100_000; i++) {
            assertThat(filter.mightContain("orders/o-" + i)).isTrue();
        }
        int falsePositives = 0;
        for (int i = 0; i < 100_000; i++) {
            falsePositives += filter.mightContain("orders/unknown-" + i) ? 1 : 0;
        }
        // 100k keys in 2^23 bits with 4 hashes: about 1 in 100,000 expected
        assertThat(falsePositives).isLessThan(50);
    }

    /** The archiver adds while request threads look up: no key added is ever lost to a concurrent add. */
    @Test
    void concurrentAddsAreAllKept() throws Exception {
        JobIdFilter filter = new JobIdFilter();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> adders = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                adders.add(pool.submit(() -> {
                    for (int i = 0; i < 50_000; i++) {
                        filter.add("t" + thread + "/" + i);
                    }
                }));
            }
            for (Future<?> f : adders) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (int t = 0; t < 4; t++) {
            for (int i = 0; i < 50_000; i++) {
                assertThat(filter.mightContain("t" + t + "/" + i)).isTrue();
            }
        }
    }
}
