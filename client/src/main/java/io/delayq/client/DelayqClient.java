package io.delayq.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A client for the delayq HTTP API on {@code java.net.http} and Jackson; thread-safe, one per process is enough.
 *
 * <pre>{@code
 * DelayqClient client = DelayqClient.builder().baseUri("http://localhost:8080").token(System.getenv("DELAYQ_TOKEN")).build();
 * client.schedule("emails", JobRequest.builder().delay(Duration.ofMinutes(30)).payload(Map.of("to", "a@b.c")).build());
 * }</pre>
 *
 * Every refusal is a {@link DelayqException} built from the service's problem+json answer:
 * {@link NotFoundException} (404), {@link ConflictException} (409, including stale lease tokens),
 * {@link UnauthorizedException} (401/403), {@link ValidationException} (400/422); no answer at all gives status 0.
 *
 * <p>Over 500 lines and one class on purpose: it is the client's one entry point, and every method is a few lines
 * mapping one HTTP operation onto the shared plumbing at the bottom, marked with its {@link Operation} id
 * ({@code OpenApiCoverageTest} compares the marks with the OpenAPI document).
 * Sub-clients per area ({@code client.tenants().…}) would be the split if it keeps growing.
 */
public final class DelayqClient {
    private static final String JSON = "application/json";

    private final URI baseUri;
    private final String token;
    private final HttpClient http;
    private final ObjectMapper mapper;
    private final Duration requestTimeout;

    private DelayqClient(Builder b) {
        String base = Objects.requireNonNull(b.baseUri, "baseUri").toString();
        this.baseUri = URI.create(base.endsWith("/") ? base : base + "/");
        this.token = b.token;
        this.http = b.httpClient != null ? b.httpClient
                : HttpClient.newBuilder().connectTimeout(b.connectTimeout).version(HttpClient.Version.HTTP_1_1).build();
        this.mapper = b.mapper != null ? b.mapper : Json.DEFAULT;
        this.requestTimeout = b.requestTimeout;
    }

    /** The largest page {@link #topics()} asks for. */
    private static final int MAX_TOPICS_PAGE = 1_000;

    public static Builder builder() {
        return new Builder();
    }

    // ---- producers

    /** Schedules a job; the same id with the same content again answers the existing job. 409 when the id is taken. */
    @Operation("scheduleJob")
    public JobInfo schedule(String topic, JobRequest job) {
        return call("POST", topicPath(topic, "jobs"), job.body(mapper), null, JobInfo.class);
    }

    /** Schedules up to 1000 jobs in one request; each item says what happened to its job. */
    @Operation("scheduleBatch")
    public BatchResult scheduleBatch(String topic, List<JobRequest> jobs) {
        List<JobRequest.Body> bodies = jobs.stream().map(j -> j.body(mapper)).toList();
        return call("POST", topicPath(topic, "jobs/batch"), Map.of("jobs", bodies), null, BatchResult.class);
    }

    /** The job and its state. @throws NotFoundException when the service does not know it */
    @Operation("getJob")
    public JobInfo get(String topic, String id) {
        return call("GET", jobPath(topic, id, ""), null, null, JobInfo.class);
    }

    /** The job, or empty when the service does not know it. */
    @Operation("getJob")
    public Optional<JobInfo> find(String topic, String id) {
        try {
            return Optional.of(get(topic, id));
        } catch (NotFoundException e) {
            return Optional.empty();
        }
    }

    /** Cancels a scheduled job. @throws NotFoundException when unknown */
    @Operation("cancelJob")
    public void cancel(String topic, String id) {
        call("DELETE", jobPath(topic, id, ""), null, null, Void.class);
    }

    /** Moves a scheduled job to run {@code delay} from now. */
    @Operation("rescheduleJob")
    public JobInfo reschedule(String topic, String id, Duration delay) {
        return call("POST", jobPath(topic, id, "/reschedule"), Map.of("delayMs", delay.toMillis()), null, JobInfo.class);
    }

    /** Moves a scheduled job to run at {@code runAt}. */
    @Operation("rescheduleJob")
    public JobInfo reschedule(String topic, String id, Instant runAt) {
        return call("POST", jobPath(topic, id, "/reschedule"), Map.of("runAt", runAt.toString()), null, JobInfo.class);
    }

    // ---- pulling consumers

    /**
     * Leases up to {@code max} due jobs of a topic, waiting up to {@code wait} for one when none is due.
     *
     * @param leaseTime how long each lease lasts, or {@code null} for the job's / topic's timeout
     * @return the leased jobs, possibly none
     */
    @Operation("leaseJobs")
    public List<LeasedJob> lease(String topic, int max, Duration wait, Duration leaseTime) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("max", max);
        body.put("waitMs", wait == null ? 0 : wait.toMillis());
        if (leaseTime != null) {
            body.put("leaseMs", leaseTime.toMillis());
        }
        Duration timeout = requestTimeout.plus(wait == null ? Duration.ZERO : wait);
        return call("POST", topicPath(topic, "leases"), body, timeout, Leases.class).leases();
    }

    /** The same lease, sent without blocking; cancelling the future abandons the request. */
    @Operation("leaseJobs")
    public CompletableFuture<List<LeasedJob>> leaseAsync(String topic, int max, Duration wait, Duration leaseTime) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("max", max);
        body.put("waitMs", wait == null ? 0 : wait.toMillis());
        if (leaseTime != null) {
            body.put("leaseMs", leaseTime.toMillis());
        }
        Duration timeout = requestTimeout.plus(wait == null ? Duration.ZERO : wait);
        HttpRequest request = request("POST", topicPath(topic, "leases"), body, timeout, JSON);
        CompletableFuture<HttpResponse<byte[]>> exchange = http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
        CompletableFuture<List<LeasedJob>> leases = exchange
                .thenApply(response -> ((Leases) read(response, mapper.constructType(Leases.class))).leases());
        // A dependent future does not cancel its source; abandon the HTTP exchange ourselves.
        leases.whenComplete((result, error) -> {
            if (leases.isCancelled()) {
                exchange.cancel(true);
            }
        });
        return leases;
    }

    /** Marks the attempt successful. @throws ConflictException when the lease is no longer current */
    @Operation("ackJob")
    public void ack(LeasedJob job) {
        ack(job.topic(), job.id(), job.leaseToken());
    }

    @Operation("ackJob")
    public void ack(String topic, String id, String leaseToken) {
        call("POST", jobPath(topic, id, "/ack"), Map.of("leaseToken", leaseToken), null, Void.class);
    }

    /** Records a failed attempt; the job's retry policy decides when it runs again (or that it is dead). */
    @Operation("nackJob")
    public void nack(LeasedJob job, String error) {
        nack(job.topic(), job.id(), job.leaseToken(), null, error);
    }

    /** "Not now": puts the job back to run again after {@code delay}. */
    @Operation("nackJob")
    public void nack(LeasedJob job, Duration delay, String error) {
        nack(job.topic(), job.id(), job.leaseToken(), delay, error);
    }

    /**
     * "Don't retry": the job cannot succeed, whatever attempts it has left; it is dead now with cause
     * {@code NO_RETRY}.
     */
    @Operation("nackJob")
    public void nackNoRetry(LeasedJob job, String error) {
        nackNoRetry(job.topic(), job.id(), job.leaseToken(), error);
    }

    @Operation("nackJob")
    public void nackNoRetry(String topic, String id, String leaseToken, String error) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("leaseToken", leaseToken);
        body.put("noRetry", true);
        if (error != null) {
            body.put("error", error);
        }
        call("POST", jobPath(topic, id, "/nack"), body, null, Void.class);
    }

    @Operation("nackJob")
    public void nack(String topic, String id, String leaseToken, Duration delay, String error) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("leaseToken", leaseToken);
        if (delay != null) {
            body.put("delayMs", delay.toMillis());
        }
        if (error != null) {
            body.put("error", error);
        }
        call("POST", jobPath(topic, id, "/nack"), body, null, Void.class);
    }

    /**
     * Gives the lease back without using its attempt: the job is due again at once and its next lease has the same
     * attempt number. At most {@code maxAttempts} releases per job are free; after that a release counts as the
     * attempt (and on the last one the job is dead). @throws ConflictException when the lease is no longer current
     */
    @Operation("releaseJob")
    public void release(LeasedJob job) {
        release(job.topic(), job.id(), job.leaseToken());
    }

    @Operation("releaseJob")
    public void release(String topic, String id, String leaseToken) {
        call("POST", jobPath(topic, id, "/release"), Map.of("leaseToken", leaseToken), null, Void.class);
    }

    /** Extends the lease to {@code leaseTime} from now. @return the new deadline */
    @Operation("extendLease")
    public Instant extend(LeasedJob job, Duration leaseTime) {
        return extend(job.topic(), job.id(), job.leaseToken(), leaseTime);
    }

    @Operation("extendLease")
    public Instant extend(String topic, String id, String leaseToken, Duration leaseTime) {
        Map<String, Object> body = Map.of("leaseToken", leaseToken, "leaseMs", leaseTime.toMillis());
        return call("POST", jobPath(topic, id, "/extend"), body, null, Extended.class).leaseDeadline();
    }

    // ---- broadcast listeners

    /**
     * Subscribes to the topic's broadcast jobs ({@code GET /v1/topics/{topic}/events}). Events are delivered on one
     * background thread, in order. The stream is not resumed after it ends: {@code onClosed} is told why (an
     * exception, or {@code null} for a normal close), and a listener that must not miss broadcasts reconnects.
     *
     * @return open once the service has accepted the subscription; close it to unsubscribe
     */
    @Operation("topicEvents")
    public EventSubscription subscribe(String topic, Consumer<BroadcastEvent> onEvent, Consumer<Throwable> onClosed) {
        HttpRequest request = HttpRequest.newBuilder(baseUri.resolve(topicPath(topic, "events")))
                .header("Accept", "text/event-stream")
                .headers(authHeader())
                .GET().build();
        return EventSubscription.open(http, request, mapper, onEvent, onClosed, requestTimeout, this::problem);
    }

    // ---- topics

    /** Every topic with its counters and settings, by name: every page of {@link #topics(int, String)}. */
    @Operation("listTopics")
    public List<TopicInfo> topics() {
        List<TopicInfo> all = new java.util.ArrayList<>();
        String cursor = null;
        do {
            TopicPage page = topics(MAX_TOPICS_PAGE, cursor);
            all.addAll(page.items());
            cursor = page.nextCursor();
        } while (cursor != null);
        return all;
    }

    /**
     * One page of topics by name ({@code GET /v1/topics?limit&cursor}).
     *
     * @param limit  1 to 1,000
     * @param cursor {@code null} for the first page, else the last page's {@link TopicPage#nextCursor}
     */
    @Operation("listTopics")
    public TopicPage topics(int limit, String cursor) {
        Map<String, Object> query = new java.util.LinkedHashMap<>();
        query.put("limit", limit);
        query.put("cursor", cursor);
        return call("GET", "v1/topics" + queryString(query), null, null, TopicPage.class);
    }

    /**
     * Deletes a topic that has no jobs: its settings and its entry in the topic list (role admin).
     *
     * @throws ConflictException when it still has jobs (scheduled, leased, or finished and still remembered)
     * @throws NotFoundException when there is no such topic
     */
    @Operation("deleteTopic")
    public void deleteTopic(String topic) {
        call("DELETE", "v1/topics/" + segment(topic), null, null, Void.class);
    }

    /** One topic's counters and settings. */
    @Operation("getTopic")
    public TopicInfo topic(String topic) {
        return call("GET", "v1/topics/" + segment(topic), null, null, TopicInfo.class);
    }

    /** Changes a topic's settings; fields not set in {@code update} keep their value. @return the topic after */
    @Operation("putTopicSettings")
    public TopicInfo updateTopic(String topic, TopicSettingsUpdate update) {
        return call("PUT", "v1/topics/" + segment(topic), update, null, TopicInfo.class);
    }

    // ---- dead letters (role admin)

    /** One page of dead letters, newest first ({@code GET /v1/admin/dead-letters}). */
    @Operation("listDeadLetters")
    public DeadLetterPage deadLetters(DeadLetterQuery query) {
        return call("GET", "v1/admin/dead-letters" + queryString(query.params()), null, null, DeadLetterPage.class);
    }

    /** A job's newest dead letter. @throws NotFoundException when the archive has none for the job */
    @Operation("getDeadLetter")
    public DeadLetter deadLetter(String topic, String id) {
        return call("GET", deadLetterPath(topic, id), null, null, DeadLetter.class);
    }

    /** Replays a job's newest dead letter at once, as a fresh job with its attempts reset. */
    @Operation("replayDeadLetter")
    public ReplayResult replayDeadLetter(String topic, String id) {
        return replayDeadLetter(topic, id, null, null);
    }

    /**
     * Replays a job's newest dead letter as a fresh job with its attempts reset.
     *
     * @param delay          run it this long from now, or {@code null} for at once
     * @param idempotencyKey a repeat with the same key answers the first replay instead of replaying again, or
     *                       {@code null} (then a repeat within seconds counts as a double click)
     */
    @Operation("replayDeadLetter")
    public ReplayResult replayDeadLetter(String topic, String id, Duration delay, String idempotencyKey) {
        Map<String, Object> body = new LinkedHashMap<>();
        if (delay != null) {
            body.put("delayMs", delay.toMillis());
        }
        Map<String, String> headers = idempotencyKey == null ? Map.of() : Map.of("Idempotency-Key", idempotencyKey);
        return call("POST", deadLetterPath(topic, id) + "/replay", body, null, ReplayResult.class, headers);
    }

    /** Replays every dead letter matching a filter, at most its {@code max} per call (see {@code more}). */
    @Operation("replayDeadLetters")
    public BulkReplayResult replayDeadLetters(DeadLetterFilter filter) {
        return call("POST", "v1/admin/dead-letters/replay", filter, null, BulkReplayResult.class);
    }

    /** Removes every dead letter of a job. @throws NotFoundException when it has none */
    @Operation("purgeDeadLetter")
    public void purgeDeadLetter(String topic, String id) {
        call("DELETE", deadLetterPath(topic, id), null, null, Void.class);
    }

    /** Removes every dead letter matching a filter (which must narrow by topic, time or replayed). @return how many */
    @Operation("purgeDeadLetters")
    public long purgeDeadLetters(DeadLetterFilter filter) {
        return call("POST", "v1/admin/dead-letters/purge", filter, null, Purged.class).purged();
    }

    // ---- tenants and tokens (role admin; operators manage every tenant, a tenant's admin its own tokens)

    /** Every tenant the caller may see, with current use ({@code GET /v1/admin/tenants}). */
    @Operation("listTenants")
    public List<TenantInfo> tenants() {
        return call("GET", "v1/admin/tenants", null, null, Tenants.class).tenants();
    }

    /** One tenant. @throws NotFoundException when there is none (or it is another tenant's) */
    @Operation("getTenant")
    public TenantInfo tenant(String name) {
        return call("GET", "v1/admin/tenants/" + segment(name), null, null, TenantInfo.class);
    }

    /**
     * Creates or replaces a tenant (operators only); every instance applies it within 5 s.
     *
     * @throws ConflictException when a pattern overlaps another tenant's, or the tenant is from the configuration
     */
    @Operation("putTenant")
    public TenantInfo putTenant(String name, TenantSpec spec) {
        return call("PUT", "v1/admin/tenants/" + segment(name), spec, null, TenantInfo.class);
    }

    /** Deletes a tenant and its tokens (operators only). @throws ConflictException while it owns pending jobs */
    @Operation("deleteTenant")
    public void deleteTenant(String name) {
        call("DELETE", "v1/admin/tenants/" + segment(name), null, null, Void.class);
    }

    /**
     * Makes an API token; its value ({@link CreatedToken#token()}) is shown this once.
     *
     * @param tenant    {@code null}: the caller's tenant (for an operator, an operators' token)
     * @param expiresAt {@code null}: never
     */
    @Operation("createToken")
    public CreatedToken createToken(String name, String tenant, Set<String> roles, Instant expiresAt) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name);
        body.put("tenant", tenant);
        body.put("roles", roles);
        body.put("expiresAt", expiresAt == null ? null : expiresAt.toString());
        body.values().removeIf(Objects::isNull);
        return call("POST", "v1/admin/tokens", body, null, CreatedToken.class);
    }

    /** Every token the caller may see, never values. */
    @Operation("listTokens")
    public List<TokenInfo> tokens() {
        return call("GET", "v1/admin/tokens", null, null, Tokens.class).tokens();
    }

    /**
     * Revokes a token: refused on every instance within 5 s.
     *
     * @param tenant the token's tenant ({@code null}: an operators' token, or the caller's own tenant's)
     */
    @Operation("revokeToken")
    public TokenInfo revokeToken(String name, String tenant) {
        String query = tenant == null ? "" : queryString(Map.of("tenant", tenant));
        return call("DELETE", "v1/admin/tokens/" + segment(name) + query, null, null, TokenInfo.class);
    }

    private record Tenants(List<TenantInfo> tenants) {
    }

    private record Tokens(List<TokenInfo> tokens) {
    }

    // ---- circuit breakers (roles admin, viewer)

    /**
     * One page of the callback origins' circuits, by origin ({@code GET /v1/admin/circuits?limit&cursor}).
     *
     * @param limit  1 to 1,000
     * @param cursor {@code null} for the first page, else the last page's {@link CircuitPage#nextCursor}
     */
    @Operation("listCircuits")
    public CircuitPage circuits(int limit, String cursor) {
        Map<String, Object> query = new java.util.LinkedHashMap<>();
        query.put("limit", limit);
        query.put("cursor", cursor);
        return call("GET", "v1/admin/circuits" + queryString(query), null, null, CircuitPage.class);
    }

    // ---- recurring schedules (roles producer and admin manage; viewer reads)

    /** Creates or replaces a recurring schedule (the whole of it). @return the schedule as stored */
    @Operation("putSchedule")
    public ScheduleInfo putSchedule(String topic, String name, ScheduleSpec spec) {
        return call("PUT", schedulePath(topic, name), spec, null, ScheduleInfo.class);
    }

    /** One schedule with its next fire times and last fires. @throws NotFoundException when there is none */
    @Operation("getSchedule")
    public ScheduleInfo getSchedule(String topic, String name) {
        return call("GET", schedulePath(topic, name), null, null, ScheduleInfo.class);
    }

    /** A page of a topic's schedules in name order, after {@code cursor} ({@code null}: from the first). */
    @Operation("listSchedules")
    public SchedulePage schedules(String topic, int limit, String cursor) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("limit", limit);
        if (cursor != null) {
            params.put("cursor", cursor);
        }
        return call("GET", "v1/topics/" + segment(topic) + "/schedules" + queryString(params), null, null,
                SchedulePage.class);
    }

    /** Deletes a schedule; the jobs it enqueued stay. @throws NotFoundException when there is none */
    @Operation("deleteSchedule")
    public void deleteSchedule(String topic, String name) {
        call("DELETE", schedulePath(topic, name), null, null, Void.class);
    }

    /** Pauses a schedule. */
    @Operation("pauseSchedule")
    public ScheduleInfo pauseSchedule(String topic, String name) {
        return call("POST", schedulePath(topic, name) + "/pause", null, null, ScheduleInfo.class);
    }

    /** Resumes a schedule; fires missed while it was paused are not made up. */
    @Operation("resumeSchedule")
    public ScheduleInfo resumeSchedule(String topic, String name) {
        return call("POST", schedulePath(topic, name) + "/resume", null, null, ScheduleInfo.class);
    }

    /** Enqueues the schedule's job now; its cron fires go on. @return the id of the job enqueued */
    @Operation("runScheduleNow")
    public String runScheduleNow(String topic, String name) {
        return call("POST", schedulePath(topic, name) + "/run", null, null, ScheduleRun.class).jobId();
    }

    private static String schedulePath(String topic, String name) {
        return "v1/topics/" + segment(topic) + "/schedules/" + segment(name);
    }

    record ScheduleRun(String topic, String jobId) {
    }

    // ---- a topic's jobs, listed and acted on in bulk (issue 29)

    /** One page of a topic's jobs ({@code GET /v1/topics/{topic}/jobs}; roles producer, viewer, admin). */
    @Operation("listJobs")
    public JobPage listJobs(JobQuery query) {
        return call("GET", "v1/topics/" + segment(query.topic()) + "/jobs" + queryString(query.params()), null, null,
                JobPage.class);
    }

    /** The dry run of a bulk operation on jobs: how many jobs it would act on now (role admin). */
    @Operation("startBulkOperation")
    public long countJobs(JobOperation operation) {
        return call("POST", "v1/admin/bulk-operations", operation.body(true, null), null, DryRun.class).matching();
    }

    /**
     * Starts a bulk operation on jobs in the background (role admin).
     *
     * @param expectedCount the dry run's count: when more jobs match now, nothing is started and this throws
     *                      {@link ConflictException}
     */
    @Operation("startBulkOperation")
    public BulkOperationInfo startJobOperation(JobOperation operation, long expectedCount) {
        return call("POST", "v1/admin/bulk-operations", operation.body(false, expectedCount), null,
                BulkOperationInfo.class);
    }

    /** A bulk operation and its progress (roles admin, viewer). */
    @Operation("getBulkOperation")
    public BulkOperationInfo bulkOperation(String id) {
        return call("GET", "v1/admin/bulk-operations/" + segment(id), null, null, BulkOperationInfo.class);
    }

    /** Asks a running bulk operation to stop at its next batch (role admin). */
    @Operation("cancelBulkOperation")
    public BulkOperationInfo cancelBulkOperation(String id) {
        return call("POST", "v1/admin/bulk-operations/" + segment(id) + "/cancel", null, null,
                BulkOperationInfo.class);
    }

    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    private record DryRun(long matching) {
    }

    // ---- the rest of the API (issue 29: every operation of the OpenAPI document has a method)

    /** Who this client's token is: its name, roles and tenant ({@code GET /v1/me}; any role). */
    @Operation("me")
    public Caller me() {
        return call("GET", "v1/me", null, null, Caller.class);
    }

    /**
     * A topic's leases in flight, earliest deadline first ({@code GET /v1/topics/{topic}/leases}; roles producer,
     * admin, viewer).
     *
     * @param limit 1 to 1,000
     */
    @Operation("leasesInFlight")
    public List<LeaseInFlight> leasesInFlight(String topic, int limit) {
        return call("GET", topicPath(topic, "leases") + queryString(Map.of("limit", limit)), null, null,
                LeasesInFlight.class).items();
    }

    /**
     * A topic's enqueued, delivered, failed and dead jobs and lateness per minute
     * ({@code GET /v1/topics/{topic}/history}; roles producer, admin, viewer).
     *
     * @param minutes how many minutes back, 1 to 10,080 (7 days)
     */
    @Operation("topicHistory")
    public TopicHistory history(String topic, int minutes) {
        return call("GET", topicPath(topic, "history") + queryString(Map.of("minutes", minutes)), null, null,
                TopicHistory.class);
    }

    /**
     * How many of a topic's jobs fall due in each of the next minutes ({@code GET /v1/topics/{topic}/forecast}).
     *
     * @param minutes 1 to 1,440
     */
    @Operation("topicForecast")
    public TopicForecast forecast(String topic, int minutes) {
        return call("GET", topicPath(topic, "forecast") + queryString(Map.of("minutes", minutes)), null, null,
                TopicForecast.class);
    }

    /**
     * Dead letters grouped by how they failed, largest group first ({@code GET /v1/admin/dead-letters/groups}; roles
     * admin, viewer). The query's filters narrow the letters counted; its limit (1 to 500) caps the groups; a cursor is
     * refused (groups come in one answer).
     */
    @Operation("deadLetterGroups")
    public List<FailureGroup> failureGroups(DeadLetterQuery query) {
        return call("GET", "v1/admin/dead-letters/groups" + queryString(query.params()), null, null,
                FailureGroups.class).items();
    }

    /**
     * Recent bulk operations, newest first ({@code GET /v1/admin/bulk-operations}; roles admin, viewer).
     *
     * @param limit 1 to 200
     */
    @Operation("listBulkOperations")
    public List<BulkOperationInfo> bulkOperations(int limit) {
        return call("GET", "v1/admin/bulk-operations" + queryString(Map.of("limit", limit)), null, null,
                BulkOperations.class).items();
    }

    /**
     * One page of the audit log, newest first ({@code GET /v1/admin/audit}; roles admin, viewer).
     *
     * @param limit  1 to 500
     * @param before {@code null} for the first page, else the last page's {@link AuditPage#nextBefore}
     */
    @Operation("auditLog")
    public AuditPage audit(int limit, String before) {
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("limit", limit);
        query.put("before", before);
        return call("GET", "v1/admin/audit" + queryString(query), null, null, AuditPage.class);
    }

    /** The dry run of a bulk replay or purge of dead letters: how many letters it would take now (role admin). */
    @Operation("startBulkOperation")
    public long countDeadLetters(DeadLetterOperation operation) {
        return call("POST", "v1/admin/bulk-operations", operation.body(true, null), null, DryRun.class).matching();
    }

    /**
     * Starts a bulk replay or purge of dead letters in the background (role admin); follow it with
     * {@link #bulkOperation(String)}.
     *
     * @param expectedCount the dry run's count: when more letters match now, nothing is started and this throws
     *                      {@link ConflictException}
     */
    @Operation("startBulkOperation")
    public BulkOperationInfo startDeadLetterOperation(DeadLetterOperation operation, long expectedCount) {
        return call("POST", "v1/admin/bulk-operations", operation.body(false, expectedCount), null,
                BulkOperationInfo.class);
    }

    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    private record LeasesInFlight(List<LeaseInFlight> items) {
    }

    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    private record FailureGroups(List<FailureGroup> items) {
    }

    @com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = true)
    private record BulkOperations(List<BulkOperationInfo> items) {
    }

    // ---- plumbing

    /** Sends one request and reads a {@code type} from a 2xx answer. */
    private <T> T call(String method, String path, Object body, Duration timeout, Class<T> type) {
        return call(method, path, body, timeout, type, Map.of());
    }

    private <T> T call(String method, String path, Object body, Duration timeout, Class<T> type,
                       Map<String, String> headers) {
        HttpRequest request = request(method, path, body, timeout, JSON, headers);
        HttpResponse<byte[]> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new DelayqException(method + " " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DelayqException(method + " " + request.uri() + " was interrupted", e);
        }
        return type.cast(read(response, mapper.constructType(type)));
    }

    private HttpRequest request(String method, String path, Object body, Duration timeout, String accept) {
        return request(method, path, body, timeout, accept, Map.of());
    }

    private HttpRequest request(String method, String path, Object body, Duration timeout, String accept,
                                Map<String, String> headers) {
        HttpRequest.BodyPublisher publisher;
        if (body == null) {
            publisher = HttpRequest.BodyPublishers.noBody();
        } else {
            try {
                publisher = HttpRequest.BodyPublishers.ofByteArray(mapper.writeValueAsBytes(body));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("the request body cannot be written as JSON: " + e.getOriginalMessage(), e);
            }
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(baseUri.resolve(path))
                .timeout(timeout != null ? timeout : requestTimeout)
                .header("Accept", accept + ", application/problem+json")
                .method(method, publisher);
        if (body != null) {
            builder.header("Content-Type", JSON);
        }
        String[] auth = authHeader();
        if (auth.length > 0) {
            builder.headers(auth);
        }
        headers.forEach(builder::header);
        return builder.build();
    }

    private Object read(HttpResponse<byte[]> response, JavaType type) {
        int status = response.statusCode();
        if (status < 200 || status > 299) {
            throw problem(status, response.body());
        }
        if (type.getRawClass() == Void.class || response.body().length == 0) {
            return null;
        }
        try {
            return mapper.readValue(response.body(), type);
        } catch (IOException e) {
            throw new DelayqException("the answer of " + response.request().method() + " " + response.request().uri()
                    + " (" + status + ") could not be read as " + type.getRawClass().getSimpleName() + ": " + e, e);
        }
    }

    /** The typed exception for an error answer, read from its problem+json body when it has one. */
    DelayqException problem(int status, byte[] body) {
        JsonNode problem = null;
        String title = null;
        String detail = null;
        String type = null;
        try {
            if (body != null && body.length > 0) {
                JsonNode node = mapper.readTree(body);
                if (node != null && node.isObject()) {
                    problem = node;
                    title = text(node, "title");
                    detail = text(node, "detail");
                    type = text(node, "type");
                }
            }
        } catch (IOException notJson) {
            detail = new String(body, StandardCharsets.UTF_8);
        }
        if (problem == null && detail == null && body != null) {
            detail = new String(body, StandardCharsets.UTF_8);
        }
        return switch (status) {
            case 400, 422 -> new ValidationException(status, title, detail, type, problem);
            case 401, 403 -> new UnauthorizedException(status, title, detail, type, problem);
            case 404 -> new NotFoundException(status, title, detail, type, problem);
            case 409 -> new ConflictException(status, title, detail, type, problem);
            default -> new DelayqException(status, title, detail, type, problem);
        };
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private String[] authHeader() {
        return token == null ? new String[0] : new String[]{"Authorization", "Bearer " + token};
    }

    private static String topicPath(String topic, String rest) {
        return "v1/topics/" + segment(topic) + "/" + rest;
    }

    private static String jobPath(String topic, String id, String rest) {
        return "v1/topics/" + segment(topic) + "/jobs/" + segment(id) + rest;
    }

    private static String deadLetterPath(String topic, String id) {
        return "v1/admin/dead-letters/" + segment(topic) + "/" + segment(id);
    }

    /**
     * Topic and id characters are URL-safe by the service's rules; encoding keeps a bad name from changing the path.
     * A name made only of dots is refused before anything is sent: {@code .} and {@code ..} are path steps that
     * {@link URI#resolve} folds ({@code dead-letters/t/../replay} would become the bulk {@code dead-letters/replay}),
     * and the service refuses an encoded dot. The service refuses such names too (JobRules.checkPathName); a dead
     * letter stored under one by an earlier version is reached through a filter ({@code idPrefix}).
     */
    static String segment(String value) {
        Objects.requireNonNull(value, "topic and id must not be null");
        if (!value.isEmpty() && value.chars().allMatch(c -> c == '.')) {
            throw new IllegalArgumentException("'" + value + "' is made only of dots; '.' and '..' are steps of a URL"
                    + " path, so no request can name it (reach such a dead letter through a filter, e.g. idPrefix)");
        }
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String queryString(Map<String, Object> query) {
        if (query == null || query.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Object> e : query.entrySet()) {
            if (e.getValue() == null) {
                continue;
            }
            out.append(out.isEmpty() ? '?' : '&')
                    .append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)).append('=')
                    .append(URLEncoder.encode(String.valueOf(e.getValue()), StandardCharsets.UTF_8));
        }
        return out.toString();
    }

    record Leases(List<LeasedJob> leases) {
        Leases {
            leases = leases == null ? List.of() : List.copyOf(leases);
        }
    }

    record Extended(Instant leaseDeadline) {
    }

    record Purged(long purged) {
    }


    /** Configures a {@link DelayqClient}. */
    public static final class Builder {
        private URI baseUri;
        private String token;
        private HttpClient httpClient;
        private ObjectMapper mapper;
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Duration connectTimeout = Duration.ofSeconds(10);

        private Builder() {
        }

        /** The service's root, e.g. {@code http://localhost:8080}. Required. */
        public Builder baseUri(URI baseUri) {
            this.baseUri = baseUri;
            return this;
        }

        public Builder baseUri(String baseUri) {
            return baseUri(URI.create(baseUri));
        }

        /** The bearer token; its roles decide what the client may do (producer, consumer, admin). */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** How long one request may take (a lease's wait is added to it). Default 30 s. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = Objects.requireNonNull(requestTimeout);
            return this;
        }

        /** How long connecting may take, when the client builds its own {@link HttpClient}. Default 10 s. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = Objects.requireNonNull(connectTimeout);
            return this;
        }

        /** Use this {@link HttpClient} (proxies, TLS) instead of a default one. */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = httpClient;
            return this;
        }

        /**
         * Use this {@link ObjectMapper} for payloads (e.g. with your own modules). It needs the JSR-310 module, and
         * should not fail on unknown properties.
         */
        public Builder objectMapper(ObjectMapper mapper) {
            this.mapper = mapper;
            return this;
        }

        public DelayqClient build() {
            return new DelayqClient(this);
        }
    }
}
