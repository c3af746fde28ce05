package io.delayq.core;

import io.delayq.core.listing.JobCursor;
import io.delayq.core.listing.JobPage;
import io.delayq.core.listing.JobQuery;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every store's {@link JobStore#listJobs} promises, against a real backend: the order, each filter, pages that
 * neither repeat nor skip a job that stays listed while others come and go, and the bound on what one page reads.
 * Jobs are put far in the future (a day and more), so no reserve of another test touches them.
 */
public abstract class JobListingContract {
    private static final long DAY = 86_400_000L;

    /** A new store on the shared test backend; closed after each test. */
    protected abstract JobStore newStore();

    protected JobStore store;
    protected String topic;
    private long base;

    @BeforeEach
    void open() {
        store = newStore();
        topic = "list-" + UUID.randomUUID();
        base = store.now() + DAY;
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void pendingJobsComeInDueOrderThenIdOverBothLanesAndEveryPage() {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            // a few run times only, so that many jobs share one and the id decides
            NewJob job = NewJob.at(topic, "j-" + (char) ('a' + i % 26) + i, "{\"n\":" + i + "}", base + (i % 7) * 1_000,
                    3);
            jobs.add(i % 2 == 0 ? job : job.withDelivery(Delivery.PUSH));
        }
        store.enqueue(jobs);

        List<Job> listed = all(JobQuery.pending(topic, 11));

        List<String> expected = jobs.stream()
                .sorted(Comparator.<NewJob>comparingLong(j -> j.runAtMs()).thenComparing(NewJob::id))
                .map(NewJob::id).toList();
        assertThat(listed).extracting(Job::id).containsExactlyElementsOf(expected);
        assertThat(listed).allMatch(j -> j.state() == JobState.SCHEDULED && j.topic().equals(topic));
        assertThat(listed.get(0).payload()).startsWith("{\"n\":");
    }

    @Test
    void aFullLastPageSaysNothingFollowsOrLeadsToAnEmptyOne() {
        store.enqueue(List.of(NewJob.at(topic, "a", "{}", base, 3), NewJob.at(topic, "b", "{}", base, 3)));
        JobPage page = store.listJobs(JobQuery.pending(topic, 2));
        assertThat(page.items()).extracting(Job::id).containsExactly("a", "b");
        if (page.hasNext()) {
            assertThat(store.listJobs(JobQuery.pending(topic, 2).withCursor(page.nextCursor())).items()).isEmpty();
        }
        assertThat(store.listJobs(JobQuery.pending(topic, 3)).nextCursor()).isNull();
    }

    @Test
    void leasedJobsAreListedByTheirLeaseDeadlineAndTheStateFilterSeparatesThem() {
        long now = store.now();
        store.enqueue(List.of(NewJob.at(topic, "due-1", "{}", now - 10, 3), NewJob.at(topic, "due-2", "{}", now - 5, 3),
                NewJob.at(topic, "later", "{}", base, 3)));
        List<Lease> leases = store.reserve(topic, Delivery.PULL, 5, 60_000).leases();
        assertThat(leases).hasSize(2);

        assertThat(all(query(EnumSet.of(JobState.LEASED), 10))).extracting(Job::id)
                .containsExactlyInAnyOrder("due-1", "due-2")
                .hasSize(2);
        assertThat(all(query(EnumSet.of(JobState.SCHEDULED), 10))).extracting(Job::id).containsExactly("later");
        // a lease deadline (now + 60 s) comes before a run time a day away
        assertThat(all(JobQuery.pending(topic, 1))).extracting(Job::id).endsWith("later").hasSize(3);
        assertThat(all(query(EnumSet.of(JobState.LEASED), 10))).allMatch(j -> j.state() == JobState.LEASED);
    }

    @Test
    void finishedJobsComeInFinishOrderAndOnlyInTheStatesAskedFor() {
        long now = store.now();
        store.enqueue(List.of(NewJob.at(topic, "ok", "{}", now - 10, 3), NewJob.at(topic, "c1", "{}", base, 3),
                NewJob.at(topic, "c2", "{}", base, 3), NewJob.at(topic, "pending", "{}", base, 3)));
        store.cancel(new JobRef(topic, "c2"));
        store.cancel(new JobRef(topic, "c1"));
        Lease lease = store.reserve(topic, Delivery.PULL, 1, 60_000).leases().get(0);
        store.ack(List.of(LeaseRef.of(lease)));

        List<Job> finished = all(query(JobQuery.FINISHED, 2));
        assertThat(finished).extracting(Job::id).containsExactlyInAnyOrder("c1", "c2", "ok");
        assertThat(finished).isSortedAccordingTo(Comparator.comparing((Job j) -> j.finishedAt())
                .thenComparing(Job::id));
        assertThat(all(query(EnumSet.of(JobState.CANCELLED), 1))).extracting(Job::id)
                .containsExactlyInAnyOrder("c1", "c2");
        assertThat(all(query(EnumSet.of(JobState.SUCCEEDED), 10))).extracting(Job::id).containsExactly("ok");
        assertThat(all(query(EnumSet.of(JobState.DEAD), 10))).isEmpty();
        assertThat(all(JobQuery.pending(topic, 10))).extracting(Job::id).containsExactly("pending");
    }

    @Test
    void theDueRangeTakesFromInclusiveToExclusive() {
        for (int i = 0; i < 10; i++) {
            store.enqueue(NewJob.at(topic, "j" + i, "{}", base + i * 1_000, 3));
        }
        JobQuery range = new JobQuery(topic, JobQuery.PENDING, base + 2_000, base + 5_000, null, null, null, 2, null);
        assertThat(all(range)).extracting(Job::id).containsExactly("j2", "j3", "j4");
        JobQuery none = new JobQuery(topic, JobQuery.PENDING, base + 2_500, base + 2_900, null, null, null, 2, null);
        assertThat(all(none)).isEmpty();
    }

    @Test
    void anIdPrefixKeepsTheJobsWhoseIdStartsWithIt() {
        store.enqueue(List.of(NewJob.at(topic, "order-1", "{}", base + 3, 3), NewJob.at(topic, "order-2", "{}", base, 3),
                NewJob.at(topic, "invoice-1", "{}", base + 1, 3), NewJob.at(topic, "orde", "{}", base + 2, 3),
                NewJob.at(topic, "x:order-3", "{}", base + 2, 3)));
        JobQuery q = new JobQuery(topic, null, null, null, "order-", null, null, 1, null);
        assertThat(all(q)).extracting(Job::id).containsExactly("order-2", "order-1");
    }

    @Test
    void aPayloadFieldMatchesAStringANumberOrABooleanAtItsPath() {
        store.enqueue(List.of(
                NewJob.at(topic, "s", "{\"customer\":{\"id\":\"42\"}}", base, 3),
                NewJob.at(topic, "n", "{\"customer\":{\"id\":42}}", base + 1, 3),
                NewJob.at(topic, "f", "{\"customer\":{\"id\":42.0}}", base + 2, 3),
                NewJob.at(topic, "other", "{\"customer\":{\"id\":43}}", base + 3, 3),
                NewJob.at(topic, "flat", "{\"customer\":42}", base + 4, 3),
                NewJob.at(topic, "array", "[{\"customer\":{\"id\":42}}]", base + 5, 3),
                NewJob.at(topic, "scalar", "42", base + 6, 3),
                NewJob.at(topic, "b", "{\"vip\":true}", base + 7, 3),
                NewJob.at(topic, "bs", "{\"vip\":\"true\"}", base + 8, 3)));
        assertThat(all(payload("customer.id", "42"))).extracting(Job::id).containsExactly("s", "n", "f");
        assertThat(all(payload("customer.id", "x"))).isEmpty();
        assertThat(all(payload("vip", "true"))).extracting(Job::id).containsExactly("b", "bs");
    }

    @Test
    void aPayloadSearchReadsABoundedNumberOfJobsPerPageAndGoesOnByItsCursor() {
        List<NewJob> jobs = new ArrayList<>();
        Set<String> wanted = new HashSet<>();
        for (int i = 0; i < 2_500; i++) {
            boolean match = i % 500 == 7;
            String id = "j" + i;
            jobs.add(NewJob.at(topic, id, "{\"kind\":\"" + (match ? "wrong" : "fine") + "\",\"i\":" + i + "}",
                    base + i, 3));
            if (match) {
                wanted.add(id);
            }
        }
        store.enqueue(jobs);

        JobQuery q = payload("kind", "wrong").withLimit(100);
        List<String> found = new ArrayList<>();
        int pages = 0;
        String cursor = null;
        do {
            JobPage page = store.listJobs(q.withCursor(cursor));
            assertThat(page.examined()).as("what one page reads").isLessThanOrEqualTo(JobQuery.EXAMINE_PER_PAGE + 100);
            page.items().forEach(j -> found.add(j.id()));
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null);
        assertThat(found).containsExactlyInAnyOrderElementsOf(wanted);
        assertThat(pages).as("2,500 jobs take several bounded pages").isGreaterThanOrEqualTo(3);
    }

    @Test
    void pagesNeitherRepeatNorSkipAJobThatStaysListedWhileOthersComeAndGo() {
        List<NewJob> stable = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            stable.add(NewJob.at(topic, "stay-" + i, "{}", base + (i % 30) * 100, 3));
        }
        store.enqueue(stable);
        Set<String> stableIds = stable.stream().map(NewJob::id).collect(Collectors.toSet());

        Map<String, Integer> seen = new HashMap<>();
        String cursor = null;
        int round = 0;
        do {
            JobPage page = store.listJobs(JobQuery.pending(topic, 17).withCursor(cursor));
            page.items().forEach(j -> seen.merge(j.id(), 1, Integer::sum));
            cursor = page.nextCursor();
            round++;
            // others come: before the cursor, at its very run time, after it; and go: some added earlier
            int r = round;
            store.enqueue(IntStream.range(0, 6).mapToObj(k -> NewJob.at(topic, "come-" + r + "-" + k, "{}",
                    base + ((r * 7 + k * 11) % 30) * 100, 3)).toList());
            if (r > 1) {
                store.cancel(new JobRef(topic, "come-" + (r - 1) + "-2"));
                store.cancel(new JobRef(topic, "come-" + (r - 1) + "-4"));
            }
        } while (cursor != null && round < 500);

        for (String id : stableIds) {
            assertThat(seen.get(id)).as(id).isEqualTo(1);
        }
        assertThat(seen.values()).allMatch(n -> n == 1);
    }

    @Test
    void aDamagedCursorAndAMixOfPendingAndFinishedAreRefused() {
        assertThatThrownBy(() -> JobQuery.pending(topic, 10).withCursor("%%%"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cursor");
        assertThatThrownBy(() -> query(EnumSet.of(JobState.SCHEDULED, JobState.DEAD), 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("state");
        assertThatThrownBy(() -> new JobQuery(topic, null, null, null, null, "a", null, 10, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payloadValue");
        assertThat(new JobCursor(5, "a:b").encode()).isNotBlank();
        assertThat(JobCursor.parse(new JobCursor(5, "a:b").encode())).isEqualTo(new JobCursor(5, "a:b"));
    }

    @Test
    void anUnknownTopicListsNothing() {
        JobPage page = store.listJobs(JobQuery.pending("never-" + UUID.randomUUID(), 10));
        assertThat(page.items()).isEmpty();
        assertThat(page.nextCursor()).isNull();
    }

    private JobQuery query(Set<JobState> states, int limit) {
        return new JobQuery(topic, states, null, null, null, null, null, limit, null);
    }

    private JobQuery payload(String field, String value) {
        return new JobQuery(topic, null, null, null, null, field, value, 2, null);
    }

    /** Every page of the listing, following the cursors. */
    protected List<Job> all(JobQuery first) {
        List<Job> jobs = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JobPage page = store.listJobs(first.withCursor(cursor));
            jobs.addAll(page.items());
            cursor = page.nextCursor();
            assertThat(++pages).as("pages of one listing").isLessThan(10_000);
        } while (cursor != null);
        return jobs;
    }
}
