package io.delayq.core;

import io.delayq.core.breaker.CircuitBreakers;
import io.delayq.core.history.TopicMinute;
import io.delayq.core.listing.JobPage;
import io.delayq.core.listing.JobQuery;
import io.delayq.core.ratelimit.RateLimiters;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.core.tenant.TenantRegistry;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The storage SPI: scheduling and delivery state of jobs. Methods are the transitions of {@link JobState}; batch forms
 * come first because the engine's hot paths are batched.
 *
 * <p>Contract every implementation holds (and {@code JobStoreContract} in core's test-jar proves):
 * <ul>
 *   <li>The store's clock is the only clock: run times from a delay, due checks and lease deadlines are all
 *       taken from it, so a skewed service host cannot run a job early or steal a lease.</li>
 *   <li>A job is never handed out before its run time, and is held by at most one lease at a time.</li>
 *   <li>Every lease has a fresh token, 128 bits from a CSPRNG drawn for it alone ({@link LeaseToken}); ack, nack and
 *       extend with any other token (an earlier lease's, another job's, a guessed one) answer
 *       {@link StoreStatus#STALE_LEASE} and change nothing. A legacy token of a lease made before the upgrade to
 *       128-bit tokens is still that lease's.</li>
 *   <li>A job accepted by {@link #enqueue} is not lost: it ends {@link JobState#SUCCEEDED}, {@link JobState#CANCELLED},
 *       or {@link JobState#DEAD} with an outbox entry; or, when its stored form is damaged beyond parsing, in the
 *       store's quarantine with its raw form.</li>
 *   <li>Each operation costs O(log N) in the size of the topic, or O(batch); nothing scans all jobs.</li>
 * </ul>
 * Failures to reach the backend surface as {@link StoreException} with {@link StoreStatus#UNAVAILABLE}.
 */
public interface JobStore extends AutoCloseable {

    /**
     * How many times a job whose <em>last</em> attempt's lease expired is tried again without using up that attempt.
     * An expired lease is an unknown outcome, not a failure: the callback may have answered 2xx and the
     * acknowledgement been lost (a killed instance, a store outage longer than the lease, a lost reserve reply). So
     * the last attempt is not turned into a dead letter on the first expiry; it is leased once more under the same
     * attempt number (so no attempt number ever exceeds {@code maxAttempts}). When that lease expires too, the job is
     * {@link JobState#DEAD} with a last error that says the outcome is unknown, so that a job whose consumer always
     * crashes still ends. Expiries before the last attempt count as failed attempts, as nacks do.
     */
    int EXPIRED_LAST_ATTEMPT_RETRIES = 1;

    /**
     * Schedules jobs. Idempotent per topic and id: the same id with the same {@link NewJob#fingerprint()} answers the
     * existing job; with another fingerprint, {@link StoreStatus#CONFLICT}. A finished job still remembered by the
     * store counts as existing.
     *
     * @return one result per job, in order
     */
    List<EnqueueResult> enqueue(List<NewJob> jobs);

    default EnqueueResult enqueue(NewJob job) {
        return enqueue(List.of(job)).get(0);
    }

    /** The job in any state, while the store remembers it (finished jobs for a retention period). */
    Optional<Job> find(JobRef ref);

    /**
     * Cancels a scheduled or leased job (a leased job's token goes stale; its in-flight attempt is not retried).
     *
     * @throws StoreException {@link StoreStatus#NOT_FOUND}, or {@link StoreStatus#NOT_IN_STATE} when it has finished
     */
    Job cancel(JobRef ref);

    /**
     * Moves a scheduled or leased job to a new run time (a leased job's token goes stale). Exactly one of the two
     * arguments is non-null. The attempt of a leased job is withdrawn, not used up: its number is given back (the next
     * lease has it again) and the job's history records that it was interrupted.
     *
     * @throws StoreException {@link StoreStatus#NOT_FOUND}, or {@link StoreStatus#NOT_IN_STATE} when it has finished
     */
    Job reschedule(JobRef ref, Long delayMs, Long runAtMs);

    /**
     * Leases up to {@code max} due jobs of one topic and delivery lane, earliest run time first. Each lease lasts the
     * job's own {@code timeoutMs}, or {@code defaultLeaseMs}; its attempt number is one more than before.
     *
     * <p>A job whose stored form cannot be decoded costs no other lease of the batch: it is left out of the answer,
     * logged, and ends (made {@link JobState#DEAD}, or moved to the quarantine when even the store cannot parse it).
     */
    default ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs) {
        return reserve(topic, lane, max, defaultLeaseMs, 0);
    }

    /** Marks attempts successful. @return one status per lease: OK, STALE_LEASE or NOT_FOUND */
    List<StoreStatus> ack(List<LeaseRef> leases);

    /**
     * Records a failed attempt: the job is scheduled again after {@link Failure#retryDelayMs()}, or becomes
     * {@link JobState#DEAD} and goes to the outbox when the failure says so. A {@linkplain Failure#held() held} job is
     * scheduled again after the delay with its attempt number given back (never dead), and its history entry is marked
     * held.
     *
     * <p>A job is not put back to be delivered after its own expiry ({@link Job#expiresAt()}): when the retry (or a
     * held job's next run time) would come after it, the job is made {@link JobState#DEAD} with cause
     * {@link DeadCause#EXPIRED} instead, in the same step. A failure that kills the job anyway keeps its own cause.
     * (A topic's {@code expiresAfter} counts from the retry's run time, so it never expires a job here.)
     *
     * @return OK, STALE_LEASE or NOT_FOUND
     */
    default StoreStatus nack(LeaseRef lease, Failure failure) {
        return nackOutcome(lease, failure).status();
    }

    /** {@link #nack}, and whether the job was made dead of its expiry instead of being put back. */
    NackOutcome nackOutcome(LeaseRef lease, Failure failure);

    /**
     * Extends a lease to {@code leaseMs} from now.
     *
     * @return the new deadline, epoch ms
     * @throws StoreException {@link StoreStatus#STALE_LEASE} or {@link StoreStatus#NOT_FOUND}
     */
    long extend(LeaseRef lease, long leaseMs);

    /**
     * Takes back up to {@code max} leases of the topic whose deadline has passed. Each counts as a failed attempt
     * ("lease expired"), and the job is due again at once; on the last attempt see
     * {@link #EXPIRED_LAST_ATTEMPT_RETRIES}. A job whose stored form cannot be parsed is moved to the quarantine and
     * costs the others nothing.
     *
     * <p>A job whose own expiry ({@link Job#expiresAt()}) has passed is not due again: it is made
     * {@link JobState#DEAD} with cause {@link DeadCause#EXPIRED} instead, in the same step (a job that dies of its
     * expired last attempt anyway keeps cause {@link DeadCause#LEASE_EXPIRED}). An ack that comes before the lease is
     * taken back still succeeds, expiry passed or not: the consumer did the work.
     *
     * @return how many leases were taken back
     */
    default int expireLeases(String topic, int max) {
        return reclaimLeases(topic, max).takenBack();
    }

    /** {@link #expireLeases}, and how many of the jobs taken back were made dead of their expiry. */
    ReclaimedLeases reclaimLeases(String topic, int max);

    /** The earliest lease deadline of the topic, epoch ms, or {@code -1} when nothing is leased. */
    long nextLeaseDeadline(String topic);

    /** The earliest run time of the topic's scheduled jobs in that lane, epoch ms, or {@code -1}. */
    long nextDueAt(String topic, Delivery lane);

    /** Every topic that has ever had a job. */
    Set<String> topics();

    TopicStats stats(String topic);

    /** The topic's settings; {@link TopicSettings#empty()} when none were stored. */
    TopicSettings settings(String topic);

    /** Replaces the topic's settings whole (a blind write; see {@link #updateSettings} for changes). */
    void putSettings(String topic, TopicSettings settings);

    /**
     * Changes the topic's settings atomically: {@code change} gets the settings as stored and returns the new ones,
     * which are written only if nothing else changed them meanwhile; otherwise {@code change} is applied again to the
     * newer settings. So two concurrent updates of different fields both survive. {@code change} may run several
     * times and must not have side effects; an exception from it stores nothing and is thrown to the caller.
     *
     * @return the settings as written
     * @throws StoreException {@link StoreStatus#CONFLICT} when other updates kept winning for too long
     */
    TopicSettings updateSettings(String topic, UnaryOperator<TopicSettings> change);

    /**
     * Registers for notifications from every instance sharing this store.
     *
     * @return closing it unregisters
     */
    AutoCloseable subscribe(StoreListener listener);

    /** Sends a broadcast job to the {@link StoreListener#onBroadcast} of every subscribed instance. */
    void publishBroadcast(Job job);

    /**
     * Up to {@code max} finished jobs waiting for the archive, oldest first (a store split into partitions may take
     * turns between them instead). Costs O(max) entries read and decoded, however many topics have a backlog. An
     * entry that cannot be decoded comes back {@linkplain OutboxEntry#unreadable() marked unreadable}, never as an
     * exception.
     */
    List<OutboxEntry> readOutbox(int max);

    /** Removes outbox entries the archive has durably written. */
    void deleteOutbox(List<OutboxEntry> entries);

    /**
     * Moves outbox entries out of the outbox into the store's quarantine, kept with their raw form and the reason, for
     * an operator to repair (storage-redis/README.md and storage-postgres/README.md say where and how). For entries
     * that cannot be decoded, so that they stop coming back in every read.
     */
    void quarantineOutbox(List<OutboxEntry> entries);

    /** How many entries and jobs wait in the quarantine (unreadable outbox entries, unparseable job records). */
    long quarantineSize();

    /** How many finished jobs wait in the outbox. */
    long outboxSize();

    /** The store's clock, epoch ms. */
    long now();

    @Override
    void close();

    /**
     * The circuits of callback origins, shared by every instance on this store (see {@link CircuitBreakers}).
     *
     * @throws UnsupportedOperationException when the store keeps none
     */
    default CircuitBreakers circuitBreakers() {
        throw new UnsupportedOperationException("this store keeps no circuit breakers");
    }

    /**
     * The tenants and API tokens made through the API (see {@link TenantRegistry}).
     *
     * @throws UnsupportedOperationException when the store keeps none
     */
    default TenantRegistry tenants() {
        throw new UnsupportedOperationException("this store keeps no tenants");
    }

    /**
     * Token buckets shared by every instance (see {@link RateLimiters}).
     *
     * @throws UnsupportedOperationException when the store keeps none
     */
    default RateLimiters rateLimiters() {
        throw new UnsupportedOperationException("this store keeps no rate limits");
    }

    /**
     * The counters of several topics at once: what {@link #stats(String)} answers for each, in one round trip where the
     * store can (a tenant's pending jobs are the sum over its topics). Topics the store has no jobs of are answered
     * with zero counts.
     */
    default Map<String, TopicStats> stats(Collection<String> topics) {
        Map<String, TopicStats> result = new LinkedHashMap<>();
        for (String topic : topics) {
            result.put(topic, stats(topic));
        }
        return result;
    }

    /**
     * What {@link #nextDueAt} (both lanes) and {@link #nextLeaseDeadline} answer for each of these topics, each topic
     * once in the order asked, in one round trip (per node) where the store can. The engine's safety and expiry sweeps
     * read every topic each round: with thousands of topics, three reads per topic made a round take seconds, and
     * delayed what the sweeps are for (lost wake-ups, expired jobs nobody reserves) by as much.
     */
    default Map<String, TopicTimes> times(Collection<String> topics) {
        Map<String, TopicTimes> result = new LinkedHashMap<>();
        for (String topic : topics) {
            result.computeIfAbsent(topic, t -> new TopicTimes(t, nextDueAt(t, Delivery.PUSH),
                    nextDueAt(t, Delivery.PULL), nextLeaseDeadline(t)));
        }
        return result;
    }

    // ---------------------------------------------------------------- operator views (the dashboard's numbers)

    /**
     * How many scheduled jobs of a topic (both lanes) fall due in each of {@code buckets} consecutive windows of
     * {@code bucketMs}, the first starting at {@code fromMs}: the due forecast. O(log N) per bucket where the store's
     * index can count a range (a sorted set), else proportional to the jobs in the forecast window, never to the topic.
     */
    default long[] dueForecast(String topic, long fromMs, long bucketMs, int buckets) {
        throw new UnsupportedOperationException("this store has no due forecast");
    }

    /** The leases in flight on a topic, earliest deadline first, at most {@code limit}. */
    default List<LeaseInFlight> leasesInFlight(String topic, int limit) {
        throw new UnsupportedOperationException("this store does not list leases");
    }

    /**
     * Adds counts to the per-topic, per-minute history (creating minutes as needed); minutes older than
     * {@link TopicMinute#RETENTION_MS} are dropped by the store. One call per instance per flush
     * (every second or so), with every topic and minute that changed: one round trip, whatever the job rate.
     */
    default void addHistory(List<TopicMinute> increments) {
        throw new UnsupportedOperationException("this store keeps no history");
    }

    /**
     * The stored minutes of a topic from {@code fromMinute} (inclusive) to {@code toMinute} (exclusive), oldest first;
     * minutes with nothing stored are left out.
     */
    default List<TopicMinute> history(String topic, long fromMinute, long toMinute) {
        throw new UnsupportedOperationException("this store keeps no history");
    }

    // ---------------------------------------------------------------- topic pages and forgetting (issue 26, finding 12)

    /**
     * One page of {@link #topics()} by name: the topics after {@code after} (exclusive; {@code null}: from the first),
     * at most {@code limit}. The default sorts every name; a store with an index in name order reads only the page.
     */
    default List<String> topics(String after, int limit) {
        return topics().stream().filter(t -> after == null || t.compareTo(after) > 0).sorted().limit(limit).toList();
    }

    /**
     * One page of the topics of {@link #topics()} whose name starts with {@code prefix}, in name order: those after
     * {@code after} (exclusive; {@code null}: from the first), at most {@code limit}. What a tenant's topics are read
     * by: a wildcard pattern's prefix ({@code billing.} for {@code billing.*}) page by page, and a topic name itself,
     * whose first answer is that topic when the store has it (every other topic starting with the name sorts after
     * it). Names compare by code point (a topic's alphabet is ASCII: also {@link String#compareTo}), so that a page
     * is a range of a store's index by name: both stores read only the page, however many other topics they hold. This
     * default filters every topic, for a store without such an index.
     *
     * @param prefix not empty; every character means itself ({@code .}, {@code _} and {@code -} are no wildcards)
     */
    default List<String> topicsStartingWith(String prefix, String after, int limit) {
        requirePrefix(prefix);
        return topics().stream().filter(t -> t.startsWith(prefix) && (after == null || t.compareTo(after) > 0))
                .sorted().limit(limit).toList();
    }

    /**
     * Which of these names are topics of the store (each one {@link #topicsStartingWith} would answer as its own first
     * name), in one call where the store can: a tenant's exact-name patterns (up to {@code Tenant.MAX_PATTERNS}) are
     * read together, not one round trip each. This default reads them one by one.
     */
    default Set<String> topicsAmong(Collection<String> names) {
        Set<String> found = new java.util.LinkedHashSet<>();
        for (String name : new java.util.LinkedHashSet<>(names)) {
            List<String> first = topicsStartingWith(name, null, 1);
            if (!first.isEmpty() && first.get(0).equals(name)) {
                found.add(name);
            }
        }
        return found;
    }

    /** The check of {@link #topicsStartingWith}'s prefix, for the stores' own implementations. */
    static String requirePrefix(String prefix) {
        if (prefix == null || prefix.isEmpty()) {
            throw new IllegalArgumentException("a topic prefix is not empty (every topic is topics(after, limit))");
        }
        return prefix;
    }

    /** The settings of several topics at once ({@link #settings(String)} of each), in one round trip where it can. */
    default Map<String, TopicSettings> settings(Collection<String> topics) {
        Map<String, TopicSettings> result = new LinkedHashMap<>();
        for (String topic : topics) {
            result.put(topic, settings(topic));
        }
        return result;
    }

    /**
     * Forgets a topic that has no scheduled or leased job: its settings and its entry in {@link #topics()} go (its
     * finished jobs and counters stay while the store keeps them). An enqueue into it afterwards registers it again.
     *
     * @return false, changing nothing, when it has scheduled or leased jobs
     * @throws UnsupportedOperationException when the store cannot forget topics
     */
    default boolean deleteTopic(String topic) {
        throw new UnsupportedOperationException("this store cannot forget topics");
    }

    /**
     * The safety sweep's forgetting of unused topics: a topic with no scheduled or leased job and no settings is marked
     * idle (by the store's clock) the first time it is seen so, and forgotten ({@link #deleteTopic}) once it has been
     * idle for {@code idleMs}; a topic with jobs or settings loses its mark.
     *
     * @return true when it was forgotten now
     */
    default boolean forgetIfIdle(String topic, long idleMs) {
        throw new UnsupportedOperationException("this store cannot forget topics");
    }

    // ---------------------------------------------------------------- expiry (issue 29)

    /**
     * {@link #reserve(String, Delivery, int, long)}, and what is not delivered: a due job whose expiry has passed (its
     * own {@link Job#expiresAt()}, else its run time + {@code expiresAfterMs} when that is positive, the topic's
     * {@code expiresAfter}) is not leased but made {@link JobState#DEAD} with cause {@link DeadCause#EXPIRED}, into the
     * outbox like any dead job, in the same step; {@link ReserveResult#expired()} counts them. So nothing that reserves
     * can deliver an expired job. A job expires when the store's clock is past its expiry.
     */
    ReserveResult reserve(String topic, Delivery lane, int max, long defaultLeaseMs, long expiresAfterMs);

    /**
     * The safety sweep for expired jobs nobody reserves (a paused topic, a pull topic without consumers, a lane behind
     * a rate limit): looks at the lane's {@code max} earliest due jobs and makes those whose expiry passed
     * {@link JobState#DEAD} with cause {@link DeadCause#EXPIRED}, leaving the others as they are. Earliest due first,
     * so with a topic's {@code expiresAfter} (expiry = run time + a constant) it finds every expired job in order;
     * a job's own later {@code expiresAt} behind {@code max} unexpired ones waits for the next sweep or a reserve.
     *
     * @return how many jobs expired
     */
    int expireOverdue(String topic, Delivery lane, int max, long expiresAfterMs);

    /**
     * The recurring schedules of every topic, shared by every instance (see {@link ScheduleStore}).
     *
     * @throws UnsupportedOperationException when the store keeps none
     */
    default ScheduleStore schedules() {
        throw new UnsupportedOperationException("this store keeps no schedules");
    }

    // ---------------------------------------------------------------- job listing (issue 29)

    /**
     * One page of a topic's jobs ({@link JobQuery} says which, in what order, and from where), walked along the
     * store's own indexes from the cursor: the jobs a filter has to read one by one (an id prefix on Redis, a payload
     * field on either store) are at most {@link JobQuery#EXAMINE_PER_PAGE} per page, so no call reads the whole topic;
     * such a page may end early, with a cursor to go on. A job that stays in the listing (same state and position)
     * while others come and go is listed exactly once over the pages.
     */
    default JobPage listJobs(JobQuery query) {
        throw new UnsupportedOperationException("this store does not list jobs");
    }
}
