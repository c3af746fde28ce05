package io.delayq.service;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.core.Callback;
import io.delayq.core.JobRules;
import io.delayq.core.JobStore;
import io.delayq.core.PolicyDefaults;
import io.delayq.core.archive.Archiver;
import io.delayq.core.archive.DeadLetterReplayer;
import io.delayq.core.archive.JobArchive;
import io.delayq.service.audit.AuditResource;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.auth.MeResource;
import io.delayq.service.auth.TopicAccess;
import io.delayq.service.breaker.BreakerVisibility;
import io.delayq.service.breaker.CircuitSnapshot;
import io.delayq.service.bulk.BulkOperationRunner;
import io.delayq.service.bulk.BulkOperationsResource;
import io.delayq.service.bulk.JobOperationRunner;
import io.delayq.service.cli.MigrateCommand;
import io.delayq.service.config.DevDefaults;
import io.delayq.service.config.DefaultHealthChecks;
import io.delayq.service.consumer.ConsumerEndpoints;
import io.delayq.service.deadletters.DeadLettersResource;
import io.delayq.service.delivery.DeliveryEngine;
import io.delayq.service.delivery.DeliveryFactory;
import io.delayq.service.delivery.TenantLookup;
import io.delayq.service.errors.CatchAllMapper;
import io.delayq.service.errors.IllegalArgumentExceptionMapper;
import io.delayq.service.errors.JsonProblemMapper;
import io.delayq.service.errors.ProblemErrorHandler;
import io.delayq.service.errors.QuotaExceededMapper;
import io.delayq.service.errors.StoreExceptionMapper;
import io.delayq.service.errors.ViolationExceptionMapper;
import io.delayq.service.errors.WebApplicationProblemMapper;
import io.delayq.service.history.CoarseStoreClock;
import io.delayq.service.history.TopicActivity;
import io.delayq.service.history.TopicHistoryRecorder;
import io.delayq.service.history.TopicInsightsResource;
import io.delayq.service.http.NoMatrixParameters;
import io.delayq.service.http.OpenApiResource;
import io.delayq.service.http.RequestIdFilter;
import io.delayq.service.http.RequestSizeLimit;
import io.delayq.service.http.SecurityHeaders;
import io.delayq.service.http.StrictJson;
import io.delayq.service.http.StrictParams;
import io.delayq.service.http.StrictUtf8;
import io.delayq.service.jobs.CallbackCheck;
import io.delayq.service.jobs.EnqueueGate;
import io.delayq.service.jobs.JobLookup;
import io.delayq.service.jobs.JobScheduler;
import io.delayq.service.jobs.JobsResource;
import io.delayq.service.listing.JobListingResource;
import io.delayq.service.prometheus.CompositeTopicActivity;
import io.delayq.service.prometheus.PrometheusExposition;
import io.delayq.service.prometheus.TopicDepthGauges;
import io.delayq.service.schedules.ScheduleJobs;
import io.delayq.service.schedules.ScheduleRunner;
import io.delayq.service.schedules.SchedulesResource;
import io.delayq.service.tenants.Tenancy;
import io.delayq.service.topics.TopicResource;
import io.delayq.service.topics.TopicSettingsUpdate;
import io.delayq.service.topics.TopicJanitor;
import io.delayq.service.topics.TopicsResource;
import io.dropwizard.assets.AssetsBundle;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.server.AbstractServerFactory;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jersey.errors.EarlyEofExceptionMapper;
import io.dropwizard.jersey.errors.EofExceptionWriterInterceptor;
import io.dropwizard.jersey.setup.JerseyEnvironment;
import io.dropwizard.lifecycle.Managed;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The delayq service: {@code java -jar delayq-service.jar server config.yml} (or {@code check config.yml}).
 */
public class DelayqApplication extends Application<DelayqConfiguration> {
    /** How often each instance adds its per-topic counts to the stored history. */
    private static final long HISTORY_FLUSH_MS = 1_000;
    /** Pause between batches of 100 letters of a bulk operation: at most ~2,000 letters/s per operation. */
    private static final long BULK_PAUSE_MS = 50;

    public static void main(String[] args) throws Exception {
        new DelayqApplication().run(args);
    }

    @Override
    public String getName() {
        return "delayq";
    }

    @Override
    public void initialize(Bootstrap<DelayqConfiguration> bootstrap) {
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
                bootstrap.getConfigurationSourceProvider(), environmentSubstitutor()));
        configure(bootstrap.getObjectMapper());
        bootstrap.addCommand(new MigrateCommand());
        // The dashboard: static files, a client of the REST API like any other (its token is a bearer token sent by
        // the page's own script, so the files themselves need none).
        bootstrap.addBundle(new AssetsBundle("/assets/ui", "/ui", "index.html", "dashboard"));
    }

    /**
     * {@code ${NAME}} and {@code ${NAME:-default}} in the configuration read environment variables. Strict: a variable
     * that is not set and has no default fails the start naming it, rather than staying as literal text (a signing
     * secret {@code ${SECRET}} would otherwise sign every callback with those nine characters).
     */
    public static EnvironmentVariableSubstitutor environmentSubstitutor() {
        return new EnvironmentVariableSubstitutor(true);
    }

    /**
     * The ObjectMapper setting the configuration and the API share: a misspelt field, in a request body or in the
     * configuration, is refused rather than silently dropped (Dropwizard's mapper ignores unknown fields). Request
     * bodies are read more strictly still, once the configuration is read ({@link StrictJson}).
     */
    public static ObjectMapper configure(ObjectMapper mapper) {
        return mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    @Override
    public void run(DelayqConfiguration config, Environment environment) {
        // First, before anything listens or starts: the README's development defaults stay on loopback.
        DevDefaults.refuseOffLoopback(config);
        StrictJson.configure(environment.getObjectMapper()); // now that the configuration has been read
        registerProblemMappers(config, environment);
        environment.jersey().register(new RequestSizeLimit(config.getLimits().getMaxRequestBytes().toBytes()));
        RequestIdFilter.register(environment); // X-Request-Id, in the MDC of every log line of a request
        SecurityHeaders.register(environment); // CSP, no framing, no sniffing, no referrer: on every answer
        environment.jersey().register(new StrictUtf8());
        environment.jersey().register(new NoMatrixParameters());
        environment.jersey().register(new StrictParams());

        // The store is built (and its lifecycle registered) first, so that everything using it stops before it.
        JobStore store = config.getStore().build(environment.lifecycle(), environment.healthChecks(),
                environment.metrics());
        JobArchive archive = config.getArchive().build(environment.lifecycle(), environment.healthChecks(),
                environment.metrics());
        Archiver archiver = new Archiver(store, archive, environment.metrics());
        environment.lifecycle().manage(archiver);
        environment.healthChecks().register("archiver", archiver.healthCheck());
        DeliveryFactory delivery = config.getDelivery();
        delivery.servicePorts().register(config.getServerFactory(), environment); // never a callback target
        // The tenants and tokens of the configuration and of the store (seen by every instance within seconds): who
        // owns a topic (delivery's shares and signatures, the quotas, what a tenant's token sees) and the tokens made
        // through the API, each scoped to its tenant's topics (an operator's to every topic).
        Tenancy tenancy = Tenancy.build(config, store, environment);
        TenantLookup owners = tenancy.directory()::tenantOf;
        environment.jersey().register(config.getAuth().build(tenancy.directory(),
                new TopicAccess(owners, name -> tenancy.directory().tenant(name).orElse(null))));
        // After the store and the archive, so that it stops (finishing the notices in flight) before they close.
        config.getDeadNotices().build(store, archive, delivery.callbackGuard(), delivery.signers(owners), environment);
        PolicyDefaults policy = delivery.policyDefaults();
        // Registered after the store, so it stops (and flushes its last second) before the store closes.
        TopicHistoryRecorder history = new TopicHistoryRecorder(store, environment.metrics(),
                new CoarseStoreClock(store::now), HISTORY_FLUSH_MS);
        environment.lifecycle().manage(history);
        // The circuit breakers of callback origins as operators see them (admin endpoint, health check, gauges).
        CircuitSnapshot circuits = new CircuitSnapshot(store);
        BreakerVisibility.register(environment, store, archive, circuits, delivery.getBreaker(),
                delivery.getOriginRateLimits());
        // /metrics/prometheus on the admin port; before the engine is built (it takes over its callback-latency timer).
        AtomicReference<DeliveryEngine> built = new AtomicReference<>();
        TopicActivity activity = CompositeTopicActivity.of(history, PrometheusExposition.register(environment,
                config.getPrometheus(), circuits::read, DefaultHealthChecks.scheduled(config, environment),
                () -> built.get() == null ? List.of() : built.get().tenantShares(),
                tenancy.quotaReadings()::current, tenancy.quotaRefusals()::counts));
        DeliveryEngine engine = delivery.build(store, environment, activity, owners);
        built.set(engine);

        Consumer<Callback> callbackCheck = new CallbackCheck(config.getLimits().jobRules(), delivery.callbackGuard());

        AuditTrail audit = new AuditTrail(archive, System::currentTimeMillis, environment.metrics());
        registerProducerApi(config, environment, store, archive, policy, callbackCheck, engine, activity, audit,
                tenancy.quotas());
        tenancy.registerApi(environment, audit);
        ConsumerEndpoints.register(environment, store, policy, config.getLimits().jobRules(), engine::watchLeases,
                config.getConsumer(), activity);
        DeadLetterReplayer replayer = new DeadLetterReplayer(store, archive, config.getLimits().jobRules(),
                DeadLetterReplayer.DEFAULT_DEDUP_WINDOW_MS);
        environment.jersey().register(new DeadLettersResource(archive, replayer, callbackCheck, audit));
        registerOperatorApi(environment, store, archive, replayer, audit);
        environment.jersey().register(new OpenApiResource(environment.getObjectMapper()));
    }

    /**
     * What operators read and do beyond topics and dead letters: who they are, topic history, forecast and leases,
     * bulk operations, the audit log.
     */
    private static void registerOperatorApi(Environment environment, JobStore store, JobArchive archive,
                                            DeadLetterReplayer replayer, AuditTrail audit) {
        BulkOperationRunner runner = new BulkOperationRunner(archive, replayer, audit, System::currentTimeMillis,
                BULK_PAUSE_MS);
        environment.lifecycle().manage(runner);
        JerseyEnvironment jersey = environment.jersey();
        jersey.register(new MeResource());
        jersey.register(new TopicInsightsResource(store));
        // issue 29: bulk operations on a topic's jobs, beside those on dead letters
        JobOperationRunner jobRunner = new JobOperationRunner(store, archive, audit, System::currentTimeMillis,
                BULK_PAUSE_MS);
        environment.lifecycle().manage(jobRunner);
        jersey.register(new BulkOperationsResource(archive, runner, jobRunner, audit, System::currentTimeMillis));
        jersey.register(new AuditResource(archive));
        jersey.register(new JobListingResource(store)); // issue 29: GET /v1/topics/{topic}/jobs
    }

    /** Jobs and topics: {@code /v1/topics/**} for producers and operators. */
    private static void registerProducerApi(DelayqConfiguration config, Environment environment, JobStore store,
                                            JobArchive archive, PolicyDefaults policy,
                                            Consumer<Callback> callbackCheck, DeliveryEngine engine,
                                            TopicActivity activity, AuditTrail audit, EnqueueGate quotas) {
        TopicDepthGauges gauges = new TopicDepthGauges(store, environment.metrics());
        environment.lifecycle().manage(new Managed() {
            @Override
            public void start() {
                gauges.trackKnownTopics();
            }
        });
        // issue 26, finding 12: topics unused for a week are forgotten, and the depth gauges of forgotten ones go
        environment.lifecycle().manage(new TopicJanitor(store, gauges, TopicJanitor.DEFAULT_FORGET_AFTER_MS,
                java.util.concurrent.TimeUnit.HOURS.toMillis(1)));
        JobRules rules = config.getLimits().jobRules();
        JobScheduler scheduler = new JobScheduler(store, rules, policy, callbackCheck,
                environment.metrics().meter(MetricRegistry.name("delayq", "jobs", "enqueued")), gauges::track, activity,
                quotas);

        JerseyEnvironment jersey = environment.jersey();
        jersey.register(new JobsResource(store, new JobLookup(store, archive), scheduler,
                config.getLimits().getMaxBatchSize(), audit));
        jersey.register(new TopicsResource(store));
        jersey.register(new TopicResource(store, new TopicSettingsUpdate(environment.getObjectMapper(), scheduler),
                topic -> {
                    scheduler.settingsChanged(topic);
                    engine.wake(topic);
                }, audit));
        // Recurring schedules (io.delayq.service.schedules): the API, and the loop that fires them on every instance.
        ScheduleJobs scheduleJobs = new ScheduleJobs(environment.getObjectMapper(), scheduler);
        jersey.register(new SchedulesResource(store, scheduleJobs, audit, quotas));
        environment.lifecycle().manage(new ScheduleRunner(store, scheduleJobs, ScheduleRunner.DEFAULT_TICK_MS,
                environment.metrics()));
    }

    /**
     * problem+json for every error: the API's, in place of Dropwizard's {@code {code, message}} mappers, and the web
     * server's own refusals, in place of Jetty's HTML pages.
     */
    private static void registerProblemMappers(DelayqConfiguration config, Environment environment) {
        if (config.getServerFactory() instanceof AbstractServerFactory server) {
            server.setRegisterDefaultExceptionMappers(false);
        }
        environment.getApplicationContext().setErrorHandler(new ProblemErrorHandler());
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                if (event instanceof Server server) {
                    server.setErrorHandler(new ProblemErrorHandler());
                }
            }
        });
        JerseyEnvironment jersey = environment.jersey();
        jersey.register(new StoreExceptionMapper());
        jersey.register(new IllegalArgumentExceptionMapper());
        jersey.register(new ViolationExceptionMapper());
        jersey.register(new QuotaExceededMapper());
        jersey.register(new JsonProblemMapper());
        jersey.register(new WebApplicationProblemMapper());
        jersey.register(new CatchAllMapper());
        // Kept from Dropwizard's defaults: a client hanging up mid-request is not a server error.
        jersey.register(new EarlyEofExceptionMapper());
        jersey.register(EofExceptionWriterInterceptor.class);
    }
}
