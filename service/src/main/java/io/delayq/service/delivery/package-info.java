/**
 * The push delivery engine: takes due jobs of the push lane from the {@link io.delayq.core.JobStore} at their due time
 * and POSTs them to their callbacks, or publishes broadcast jobs to every instance.
 *
 * <h2>Pieces</h2>
 * {@link io.delayq.service.delivery.DeliveryFactory} is the {@code delivery:} configuration block (defaults and the
 * settings table are in its Javadoc) and builds the engine, the {@link io.delayq.core.PolicyDefaults} and the
 * {@link io.delayq.service.delivery.CallbackGuard}. {@link io.delayq.service.delivery.DeliveryEngine} is the
 * Dropwizard {@code Managed} engine; it only wires the parts below and runs their lifecycle. Each part can be read
 * on its own:
 * <table>
 *   <caption>the parts of the engine</caption>
 *   <tr><th>seam</th><th>class</th><th>does</th></tr>
 *   <tr><td rowspan="4">finding due jobs</td><td>{@code TopicTimers}</td><td>per topic one due timer and one lease
 *       timer, on one small scheduler that also runs the engine's other short tasks</td></tr>
 *   <tr><td>{@code ReservePump}</td><td>one turn of a topic: reserves its due push jobs for the slots the turn was
 *       granted, dispatches them, re-arms the due timer from the store's next run time; paused topics; cached
 *       settings</td></tr>
 *   <tr><td>{@code SafetySweep}</td><td>the store's wake-ups, and the slow sweep for lost ones (and the
 *       {@code engine} health check)</td></tr>
 *   <tr><td>{@code LeaseExpiry}</td><td>what a lease timer does: {@code expireLeases}, pump, re-arm</td></tr>
 *   <tr><td rowspan="2">sharing capacity</td><td>{@code FairScheduler}</td><td>which ready topic gets the next
 *       turn and how many slots: tenants by weight, a tenant's topics round robin; global and per-topic slots</td></tr>
 *   <tr><td>{@code TopicOwners}</td><td>each topic's tenant ({@link io.delayq.service.delivery.TenantLookup}), for
 *       its share and its signer ({@link io.delayq.service.delivery.TopicSigners})</td></tr>
 *   <tr><td rowspan="6">delivering a job</td><td>{@code LeaseDispatcher}</td><td>starts each lease's attempt: an HTTP
 *       callback, a broadcast, or death for want of a callback</td></tr>
 *   <tr><td>{@code CallbackSender}</td><td>one HTTP attempt: URL check, signed request
 *       ({@code CallbackHeaders}), the answer turned into an outcome ({@code FailureMessages}, {@link
 *       io.delayq.service.delivery.RetryAfter})</td></tr>
 *   <tr><td>{@code AttemptBudget}</td><td>how much of a lease the HTTP attempt gets, and how much is kept for
 *       recording its outcome ({@code StoreWriteTimes})</td></tr>
 *   <tr><td>{@code AttemptOutcomes}</td><td>attempts in flight; success → ack, failure → nack with the retry
 *       policy's delay or dead; the store-writer threads</td></tr>
 *   <tr><td>{@code AckBatcher}</td><td>acks written in batches, at once when a lease would end first, all of them
 *       at a clean stop</td></tr>
 *   <tr><td>{@code CallbackClient}</td><td>Jetty's non-blocking HTTP client, with the guard in its resolver</td></tr>
 * </table>
 * Also {@link io.delayq.service.delivery.CallbackGuard} (which callback URLs may be called, checked at scheduling
 * without DNS and again before every delivery with DNS, every resolved address), {@link
 * io.delayq.service.delivery.Signatures} (the {@code Delayq-Signature} header, to sign and to verify), {@code
 * StoreClock} (the store's clock as seen from here) and {@code DeliveryMetrics}.
 *
 * <h2>Finding due jobs: timers, not polling</h2>
 * The engine never asks the store "is anything due?" on a fixed interval. It keeps <b>one timer per topic</b>, armed
 * for the topic's next due time, on a single {@code ScheduledThreadPoolExecutor} (a heap of delayed tasks, waits with
 * {@code awaitNanos}, so it fires within a fraction of a millisecond). A timer is armed from three sources:
 * <ol>
 *   <li>what {@code reserve} returns: every call answers the topic's next due time ({@code nextDueAt}) after what it
 *       leased, so each reserve re-arms the timer for the next job;</li>
 *   <li>the store's wake-ups ({@code StoreListener.onWake(topic, dueAt)}, e.g. Redis pub/sub): a job scheduled
 *       ahead of everything else in its topic, on any instance;</li>
 *   <li>a slow <b>safety sweep</b> ({@code sweepInterval}, default 5 s) over {@code topics()} reading
 *       {@code nextDueAt(topic, PUSH)} and {@code nextLeaseDeadline(topic)}, for a wake-up lost while the
 *       subscription reconnected. Its cost is a few O(log N) reads per topic per interval, whatever the load, read
 *       for 500 topics per store call ({@code JobStore.times}: one pipeline or statement, not a round trip per
 *       read).</li>
 * </ol>
 * Only the earliest pending timer of a topic is kept: arming a later time than the pending one is a no-op.
 *
 * <p>When a timer fires, its topic is <i>ready</i> and waits for a <i>turn</i> ({@code FairScheduler}, below); when
 * a turn is free the engine calls {@code reserve(topic, PUSH, granted slots, lease)} on the timer thread itself (no
 * hand-off between the due time and the store call) and dispatches what it got. A batch that came back full gives the
 * topic another turn (draining a backlog, one reserve per turn); a short one arms the timer from {@code nextDueAt}.
 * Under load a reserve takes every job that fell due since the last one, so the number of store calls per job falls
 * as the rate rises, instead of rising like a busy loop.
 *
 * <h2>Many teams: fair turns and fair slots</h2>
 * Delivery capacity is shared between tenants ({@link io.delayq.service.delivery.TenantLookup}: who owns a topic) by
 * weight, the operators' topics together being one more tenant of weight 1, then evenly between a tenant's topics,
 * so that one tenant's backlog delays that tenant, not the others. Ready topics wait in their tenant's queue (round
 * robin); each turn goes to the tenant holding the fewest slots for its weight, and grants at most the reserve batch,
 * the free slots, the topic's own free slots and, while other tenants wait, what brings the tenant up to its
 * weighted share of {@code maxConcurrency}. Every turn is one reserve, and a turn that leaves work goes back through
 * the timer threads' queue, behind timers that fired meanwhile. So a tenant whose job falls due while another drains
 * a burst of 100,000 is served at the next turn, and under contention the slots in flight follow the weights
 * whatever each tenant's receivers' speed (max-min fair, work-conserving: an idle tenant's share goes to the busy
 * ones). Why turns and not only slots: before this, a topic's pump went on reserving while full batches came back,
 * holding its timer thread; thirty topics of one team falling due at one instant were drained one after the other on
 * the two timer threads, and another team's timer, due a moment later, waited behind the whole burst (3 s for
 * 30,000 jobs), although slots were free. Every instance applies the weights to what it delivers, and every instance
 * sees all due work through the store, so a fleet shares by the same weights.
 *
 * <h2>Two traps avoided</h2>
 * Both are common in queues built on a store, shown here on Redis:
 * <ul>
 *   <li>Waiting inside the store: a Redis blocking command's timeout ({@code BZPOPMIN key 0.01}) is only noticed
 *       when Redis's event loop wakes, every 100 ms at the default {@code hz 10}, so it cannot give millisecond
 *       precision. The timer is in the client, whatever the store.</li>
 *   <li>Re-running the "move due jobs" call back to back whenever the next job is "close" (Redisson) buys precision
 *       with tens of store calls per job. Here an empty answer is never repeated at once: the timer is re-armed for
 *       the returned due time.</li>
 * </ul>
 *
 * <h2>Whose clock</h2>
 * The store's clock decides what is due (a job is never handed out before its run time by that clock). The engine
 * converts store times to local timer delays with an offset estimated from every {@code reserve} answer
 * ({@code now}, truncated to the ms): {@code storeNow − localTimeOfReceipt} is a lower bound of the true offset, and
 * the largest recent bound is used, so a timer fires at the due time or a fraction of a millisecond after it, on
 * hosts whose clocks disagree by any amount. Should a timer still fire early, the empty answer re-arms by the store's
 * own {@code now} plus the remaining time, which cannot be early, so a bad estimate costs one extra call, never a
 * loop.
 *
 * <h2>Leases, acks and at-least-once</h2>
 * Every reserved job is leased for its timeout (job, else topic, else {@code callbackTimeout}, at least 100 ms). The
 * outcome of the attempt must reach the store before the lease ends: a lease that ends unrecorded is taken back as
 * "lease expired", a failed attempt, and on the last attempt that kills a job whose callback may have answered 200.
 * So the HTTP request's timeout is what is left of the lease less a margin ({@code AttemptBudget}): 10 % of the
 * timeout (at most 1 s), but at least what recording needs — 20 ms plus twice the slowest store write of the last
 * 10–20 s — and at most half the timeout. A 2xx answer is acknowledged (a {@code 202} only when neither the topic's
 * {@code asyncAck: true} nor the receiver's {@code Delayq-Async-Ack: true} makes it an asynchronous acknowledgement)
 * in batches ({@code ackBatchSize} or after {@code ackFlushInterval}), except an ack whose lease would end before its batch is written, which is written at
 * once. Anything else — another status, a timeout, a refused connection, a refused address — is a failed attempt,
 * recorded with {@code nack}: retried after the retry policy's delay (or the receiver's {@code Retry-After} on
 * 429/503, capped by {@code maxRetryAfter}), or {@code DEAD} when attempts are exhausted or the job has no callback.
 *
 * <p>Nothing is lost when the process dies: a lease that is never acknowledged expires and counts as a failed attempt,
 * and the job is due again. The engine arms a timer at the earliest lease deadline of each topic (found by the sweep)
 * and calls {@code expireLeases}, for both lanes, so pulling consumers' expired leases come back too. Delivery is
 * therefore <b>at least once</b>: a receiver may see a job again (after a crash between its 2xx and the ack), and
 * deduplicates by {@code Delayq-Id} and {@code Delayq-Attempt}. What a kill leaves: acks still in the batch (at most
 * {@code ackFlushInterval}, 10 ms by default, of successes) and callbacks in flight are unknown outcomes; their leases
 * expire, and what an expired lease means on a job's last attempt is the store's rule (see docs/callbacks.md).
 *
 * <h2>Circuit breaker</h2>
 * Before each callback the {@link io.delayq.service.breaker.CallbackBreaker} (package {@code io.delayq.service.breaker})
 * looks at its view of the callback origin's circuit: closed, the attempt is made; open, the job is <i>held</i> — a
 * {@code nack} with {@link io.delayq.core.Failure#held} on a store writer ({@code AttemptOutcomes.heldLater}), which
 * postpones it without using its attempt — except the one probe per interval; just closed, held jobs go out at the
 * topic's {@code releasePerSecond}. After the answer, a refused or reset connection, a 5xx (not a 503 with
 * {@code Retry-After}: back-pressure) or a timeout of an attempt allowed at least {@code breaker.minTimeout} is recorded
 * as a failure of the origin, and an answer resets it, on the breaker's own thread. A topic with the breaker off never
 * touches its circuits; every callback, breaker on or off, notes its topic and origin in memory, and the breaker's
 * thread writes the pairs not written in the last minute once a second in one store call
 * ({@code CircuitBreakers.recordOrigins}): which origins a tenant's jobs use, for what its token lists of the
 * circuits.
 *
 * <h2>Rate limits</h2>
 * A topic's {@code rateLimit} and the configured callback origins' limits ({@code delivery.originRateLimits}) are token
 * buckets in the store ({@link io.delayq.service.ratelimit.TopicPermits}, {@link
 * io.delayq.service.ratelimit.OriginRateLimits}), so they hold for the fleet. {@code ReservePump} takes the topic's
 * permits before its reserve (one store call) and reserves no more than were granted; with none, the turn ends at once
 * (its slots go back to the {@code FairScheduler} for other topics and tenants) and the due timer is armed for the
 * next permit, so waiting jobs stay scheduled with their attempts unused. Origins are known only after the reserve:
 * one take per limited origin in the batch, and leases beyond the grant are held ({@code LeaseDispatcher.hold}, the
 * breaker's held nack) until about when their permits come.
 *
 * <h2>Bounded concurrency</h2>
 * {@code maxConcurrency} slots in all and {@code maxConcurrencyPerTopic} per topic bound the callbacks in flight. The
 * engine reserves only as many jobs as a turn was granted slots for, so a lease never waits for a slot; when slots
 * free up and topics wait for them, a turn runs a moment (1 ms) later, so one reserve refills several.
 * A paused topic is not reserved at all (settings cached for 1 s; {@code DeliveryEngine.wake(topic)} re-reads them
 * at once after a change on this instance).
 *
 * <h2>The request</h2>
 * {@code POST <callback url>} with the payload bytes exactly as stored, {@code Content-Type: application/json}, the
 * callback's own headers, and:
 * <ul>
 *   <li>{@code Delayq-Event: callback}, {@code Delayq-Id}, {@code Delayq-Topic}, {@code Delayq-Attempt} (1-based),
 *       {@code Delayq-Run-At} (RFC 3339), {@code Delayq-Lease-Token};</li>
 *   <li>{@code Delayq-Signature: t=<unix seconds>,v2=<hex>[,v2=<hex>]}, one per secret of the topic's tenant (two
 *       during a rotation; the service's {@code signingSecret} for operators' topics and tenants without secrets:
 *       {@link io.delayq.service.delivery.TopicSigners}), the HMAC-SHA256 of
 *       {@code "v2\n<kind>\n<topic>\n<id>\n<attempt>\n<t>\n"} and the raw body ({@link
 *       io.delayq.service.delivery.Signatures} has the exact bytes). Receivers verify with the Java client's
 *       {@code SignatureVerifier} or the documented Python and Node snippets: recompute, compare in constant time,
 *       reject timestamps more than 300 s off.</li>
 *   <li>{@code traceparent} / {@code tracestate} for a job enqueued with a W3C trace context: same trace id, a new
 *       parent id per attempt ({@code CallbackTracing}, which also makes the attempt's OpenTelemetry span).</li>
 * </ul>
 * The HTTP client is Jetty's non-blocking {@code HttpClient} ({@link io.delayq.service.delivery.CallbackClient}:
 * HTTP/1.1, keep-alive, up to {@code maxConcurrency} connections per callback host, no redirects, no content
 * decoding). The timer thread that reserved a batch also sends it, without blocking and without a hand-off; each
 * answer comes back on one of the client's threads, which acks through the {@code AckBatcher} (never blocks) and
 * hands failures to a few store-writer threads (a nack is a blocking store call). A callback in flight therefore holds
 * a connection and a slot, not a thread. The client's resolver checks every address a callback host resolves to when
 * it connects, so a name re-pointed at a refused range since the job was accepted is refused then.
 *
 * <h2>Shutdown</h2>
 * {@code stop()} stops reserving and unsubscribes, waits up to {@code shutdownGracePeriod} for callbacks in flight,
 * then aborts the rest (not recorded as failures: their leases expire, which counts as the attempt), and writes every
 * ack it still holds before it returns, without waiting for the batch's flush time. The service registers the
 * engine after the store, so Dropwizard stops the engine first and the store is still open for those writes.
 *
 * <h2>Metrics ({@code delayq.delivery.*})</h2>
 * {@code delivered}, {@code failed}, {@code dead}, {@code reserve-calls}, {@code reserved}, {@code accepted} (202s
 * confirmed later), {@code async-extensions-late} (their lease extension came after the lease ended) (meters);
 * {@code callback-latency} (timer); {@code lateness} (histogram, ms from run time to the start of delivery, by the
 * store's clock); {@code in-flight}, {@code free-slots}, {@code tenants-waiting} (tenants with a topic waiting for a
 * turn) (gauges); per topic {@code topic.<topic>.delivered}, {@code .failed}, {@code .dead} (counters). Health check {@code engine}: running and its sweep reached the store
 * recently.
 */
package io.delayq.service.delivery;
