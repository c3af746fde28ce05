package io.delayq.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every store promises about its topic list beyond {@link JobStoreContract} (issue 26, finding 12): pages in name
 * order, the settings of a page in one call, the deletion of a topic without scheduled or leased jobs, and the
 * forgetting of a topic without jobs and settings once idle long enough. Run against a real backend by each store
 * module; each test uses topics of its own.
 */
public abstract class TopicsContract {
    private static final String PAYLOAD = "{\"n\":1}";

    /** A new store on the shared test backend; closed after each test. */
    protected abstract JobStore newStore();

    protected JobStore store;
    private String run;

    @BeforeEach
    void open() {
        store = newStore();
        run = "tc-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void pagesListEveryTopicOnceInNameOrder() {
        List<String> mine = IntStream.range(0, 5).mapToObj(i -> run + "-p" + i).toList();
        mine.forEach(t -> store.enqueue(NewJob.delayed(t, "j", PAYLOAD, 60_000, 1)));

        List<String> seen = new ArrayList<>();
        String after = run; // the topics of this test sort right after it
        List<String> page;
        do {
            page = store.topics(after, 2);
            assertThat(page.size()).isLessThanOrEqualTo(2);
            seen.addAll(page);
            after = page.isEmpty() ? null : page.get(page.size() - 1);
        } while (page.size() == 2 && seen.stream().filter(mine::contains).count() < mine.size());
        assertThat(seen).isSorted().doesNotHaveDuplicates();
        assertThat(seen.stream().filter(t -> t.startsWith(run)).toList()).containsExactlyElementsOf(mine);
        assertThat(store.topics(mine.get(4), 10)).doesNotContain(mine.get(4));
        assertThat(store.topics(null, 3)).hasSizeLessThanOrEqualTo(3).isSorted();
    }

    @Test
    void theSettingsOfManyTopicsComeInOneCall() {
        String with = run + "-with";
        String without = run + "-without";
        store.putSettings(with, new TopicSettings(null, 4, null, null, null, null));
        Map<String, TopicSettings> settings = store.settings(List.of(with, without));
        assertThat(settings).containsOnlyKeys(with, without);
        assertThat(settings.get(with).maxAttempts()).isEqualTo(4);
        assertThat(settings.get(without)).isEqualTo(TopicSettings.empty());
    }

    @Test
    void aTopicWithJobsIsNotDeletedAnEmptyOneIsWithItsSettings() {
        String topic = run + "-del";
        store.putSettings(topic, new TopicSettings(null, 4, null, null, null, null));
        store.enqueue(NewJob.delayed(topic, "j", PAYLOAD, 60_000, 1));

        assertThat(store.deleteTopic(topic)).as("a scheduled job").isFalse();
        assertThat(store.topics()).contains(topic);
        assertThat(store.settings(topic).maxAttempts()).as("nothing changed").isEqualTo(4);

        store.cancel(new JobRef(topic, "j"));
        assertThat(store.deleteTopic(topic)).isTrue();
        assertThat(store.topics()).doesNotContain(topic);
        assertThat(store.topics(run, 100)).doesNotContain(topic);
        assertThat(store.settings(topic)).isEqualTo(TopicSettings.empty());
        assertThat(store.deleteTopic(topic)).as("deleting again changes nothing").isTrue();

        store.enqueue(NewJob.delayed(topic, "k", PAYLOAD, 60_000, 1));
        assertThat(store.topics()).as("a new job registers it again").contains(topic);
    }

    @Test
    void aTopicWithoutJobsAndSettingsIsForgottenOnceIdleLongEnough() throws InterruptedException {
        String idle = run + "-idle";
        String configured = run + "-configured";
        String busy = run + "-busy";
        for (String t : List.of(idle, configured, busy)) {
            store.enqueue(NewJob.delayed(t, "j", PAYLOAD, 60_000, 1));
        }
        store.cancel(new JobRef(idle, "j"));
        store.cancel(new JobRef(configured, "j"));
        store.putSettings(configured, new TopicSettings(null, 4, null, null, null, null));

        for (String t : List.of(idle, configured, busy)) {
            assertThat(store.forgetIfIdle(t, 300)).as("the first look only marks %s", t).isFalse();
        }
        Thread.sleep(500);
        assertThat(store.forgetIfIdle(configured, 300)).as("settings keep it").isFalse();
        assertThat(store.forgetIfIdle(busy, 300)).as("a job keeps it").isFalse();
        assertThat(store.forgetIfIdle(idle, 300)).isTrue();
        assertThat(store.topics()).doesNotContain(idle).contains(configured, busy);

        store.cancel(new JobRef(busy, "j"));
        assertThat(store.forgetIfIdle(busy, 300)).as("idle only from now on").isFalse();
    }
}
