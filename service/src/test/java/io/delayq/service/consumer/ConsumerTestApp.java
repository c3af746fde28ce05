package io.delayq.service.consumer;

import io.delayq.core.JobStore;
import io.delayq.core.PolicyDefaults;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.errors.IllegalArgumentExceptionMapper;
import io.delayq.service.errors.JsonProblemMapper;
import io.delayq.service.errors.StoreExceptionMapper;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.dropwizard.lifecycle.Managed;

/**
 * The consumer endpoints alone on a real Jetty and a real Redis, with the service's problem mappers but without its
 * auth filter or delivery engine (tests expire leases through the store, as the engine would).
 */
public class ConsumerTestApp extends Application<Configuration> {
    /** Event streams get a keep-alive comment this often (15 s in the service). */
    static final long KEEP_ALIVE_MS = 300;
    private JobStore store;

    /** A configuration on free ports. */
    static Configuration config() {
        Configuration config = new Configuration();
        DefaultServerFactory server = (DefaultServerFactory) config.getServerFactory();
        ((HttpConnectorFactory) server.getApplicationConnectors().get(0)).setPort(0);
        ((HttpConnectorFactory) server.getAdminConnectors().get(0)).setPort(0);
        return config;
    }

    @Override
    public void run(Configuration configuration, Environment environment) {
        RedisJobStore redis = RedisJobStore.connect(TestRedis.sharedUri());
        store = redis;
        environment.lifecycle().manage(new Managed() {
            @Override
            public void stop() {
                redis.close();
            }
        });
        environment.jersey().register(new StoreExceptionMapper());
        environment.jersey().register(new IllegalArgumentExceptionMapper());
        environment.jersey().register(new JsonProblemMapper());
        // no delivery engine here: expired leases are taken back by the tests themselves
        ConsumerEndpoints.register(environment, store, PolicyDefaults.defaults(), io.delayq.core.JobRules.defaults(),
                LeaseWatcher.NONE, KEEP_ALIVE_MS, BroadcastHub.MAX_QUEUED_BYTES, new ConsumerFactory(),
                io.delayq.service.history.TopicActivity.NONE);
    }

    JobStore store() {
        return store;
    }
}
