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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every store promises about its topic list beyond {@link JobStoreContract} (issue 26, finding 12): pages in name
 * order, the topics starting with a prefix (a tenant's patterns) as pages of their own, the settings of a page in one
 * call, the deletion of a topic without scheduled or leased jobs, and the forgetting of a topic without jobs and
 * settings once idle long enough. Run against a real backend by each store
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
    void theTopicsStartingWithAPrefixAreExactlyThoseInNameOrder() {
        String b = run + ".billing";
        List<String> names = List.of(b, b + "-x", b + "_y", b + ".a-b_c", b + ".eu.y", b + ".eu.z", b + ".x", b + "x.q",
                b + ".eu", run + ".bill", run + ".billin");
        names.forEach(t -> store.enqueue(NewJob.delayed(t, "j", PAYLOAD, 60_000, 1)));

        assertThat(store.topicsStartingWith(b + ".", null, 100)).as("billing.* against billing.eu.*")
                .containsExactly(b + ".a-b_c", b + ".eu", b + ".eu.y", b + ".eu.z", b + ".x");
        assertThat(store.topicsStartingWith(b + ".eu.", null, 100)).containsExactly(b + ".eu.y", b + ".eu.z");
        assertThat(store.topicsStartingWith(b, null, 100)).as("by code point: '-' < '.' < '_' < 'x'")
                .containsExactlyElementsOf(names.stream().filter(t -> t.startsWith(b)).sorted().toList());
        assertThat(store.topicsStartingWith(b, null, 1)).as("a topic name is its own first answer").containsExactly(b);
        assertThat(store.topicsStartingWith(b + ".eu", null, 1)).containsExactly(b + ".eu");
        assertThat(store.topicsStartingWith(b + "_", null, 100)).as("'_' and '-' are no wildcards")
                .containsExactly(b + "_y");
        assertThat(store.topicsStartingWith(b + "-", null, 100)).containsExactly(b + "-x");
        assertThat(store.topicsStartingWith(run + ".billing.a-b_c.", null, 100)).as("nothing goes on after it")
                .isEmpty();
        assertThat(store.topicsStartingWith(run + ".nobody", null, 100)).isEmpty();
        assertThatThrownBy(() -> store.topicsStartingWith("", null, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theTopicsAmongNamesAreThoseTheStoreHasExactly() {
        String b = run + ".among";
        List<String> topics = List.of(b, b + ".x", b + "_y");
        topics.forEach(t -> store.enqueue(NewJob.delayed(t, "j", PAYLOAD, 60_000, 1)));

        List<String> asked = List.of(b + ".x", run + ".amon", b + ".", b, b + "_", run + ".nobody", b + "_y", b);
        assertThat(store.topicsAmong(asked)).as("each once; a name's prefix or extension is not the name")
                .containsExactlyInAnyOrder(b + ".x", b, b + "_y");
        assertThat(store.topicsAmong(List.of())).isEmpty();
    }

    @Test
    void pagesOfAPrefixGoOnAfterTheLastNameRead() {
        String p = run + ".pg.";
        List<String> mine = IntStream.range(0, 7).mapToObj(i -> p + "t" + i).toList();
        mine.forEach(t -> store.enqueue(NewJob.delayed(t, "j", PAYLOAD, 60_000, 1)));
        List.of(run + ".pg", run + ".pgx", run + ".ph.t0").forEach(t -> store.enqueue(NewJob.delayed(t, "j", PAYLOAD,
                60_000, 1)));

        List<String> seen = new ArrayList<>();
        String after = null;
        List<String> page;
        do {
            page = store.topicsStartingWith(p, after, 3);
            assertThat(page.size()).isLessThanOrEqualTo(3);
            seen.addAll(page);
            after = page.isEmpty() ? after : page.get(page.size() - 1);
        } while (page.size() == 3);
        assertThat(seen).containsExactlyElementsOf(mine);
        assertThat(store.topicsStartingWith(p, p + "t3", 10)).containsExactly(p + "t4", p + "t5", p + "t6");
        assertThat(store.topicsStartingWith(p, p + "t3a", 10)).as("after a name not stored")
                .containsExactly(p + "t4", p + "t5", p + "t6");
        assertThat(store.topicsStartingWith(p, run, 10)).as("after a name before the prefix: from the first")
                .containsExactlyElementsOf(mine);
        assertThat(store.topicsStartingWith(p, p + "u", 10)).as("after the prefix's range").isEmpty();
        assertThat(store.topicsStartingWith(p, p + "t6", 10)).isEmpty();
    }

    @Test
    void aDeletedOrForgottenTopicLeavesItsPrefixAndANewJobBringsItBack() {
        String p = run + ".gone.";
        String deleted = p + "deleted";
        String forgotten = p + "forgotten";
        String kept = p + "kept";
        for (String t : List.of(deleted, forgotten, kept)) {
            store.enqueue(NewJob.delayed(t, "j", PAYLOAD, 60_000, 1));
        }
        store.cancel(new JobRef(deleted, "j"));
        store.cancel(new JobRef(forgotten, "j"));
        assertThat(store.topicsStartingWith(p, null, 10)).containsExactly(deleted, forgotten, kept);

        assertThat(store.deleteTopic(deleted)).isTrue();
        boolean gone = store.forgetIfIdle(forgotten, 0) || store.forgetIfIdle(forgotten, 0);
        assertThat(gone).as("idle for 0 ms: forgotten by the first look (which may only mark it) or the next").isTrue();
        assertThat(store.topicsStartingWith(p, null, 10)).containsExactly(kept);
        assertThat(store.topicsStartingWith(deleted, null, 1)).isEmpty();
        assertThat(store.topics(run, 100)).doesNotContain(deleted, forgotten).contains(kept);

        store.enqueue(NewJob.delayed(deleted, "k", PAYLOAD, 60_000, 1));
        assertThat(store.topicsStartingWith(p, null, 10)).containsExactly(deleted, kept);
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
