package io.delayq.bench.ceiling;

import com.codahale.metrics.health.HealthCheck;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.net.URI;

/**
 * The HTTP enqueue ceiling of BENCHMARK.md ("HTTP enqueue ceiling"): the least a Dropwizard service can do for W4's
 * single-job POST. It reads the same {@code ScheduleJobRequest}-shaped JSON into a plain record with Jackson
 * ({@link CeilingResource}) and does one Redis {@code SET} per request on a pooled Jedis client, on the bench Redis.
 * The bench starts it in a JVM of its own, like the service, with the same server block (connector, threads, no
 * request log) and the same logging; it has no auth, no validation and no scheduling. delayq's enqueue req/s is
 * reported as a ratio of this one's, measured in the same repetition.
 */
public final class CeilingApp extends Application<CeilingApp.Config> {

    /** {@code redisUri} and the pool's size (the service's bench configuration uses 64). */
    public static final class Config extends Configuration {
        @NotEmpty
        @JsonProperty
        public String redisUri;

        @Min(1)
        @JsonProperty
        public int poolSize = 64;
    }

    public static void main(String[] args) throws Exception {
        new CeilingApp().run(args);
    }

    @Override
    public String getName() {
        return "delayq-bench-ceiling";
    }

    @Override
    public void run(Config config, Environment environment) {
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(config.poolSize);
        pool.setMaxIdle(config.poolSize);
        UnifiedJedis redis = RedisClient.builder().fromURI(URI.create(config.redisUri)).poolConfig(pool).build();
        environment.lifecycle().manage(new Managed() {
            @Override
            public void stop() {
                redis.close();
            }
        });
        environment.healthChecks().register("redis", new HealthCheck() {
            @Override
            protected Result check() {
                return "PONG".equals(redis.ping()) ? Result.healthy() : Result.unhealthy("no PONG");
            }
        });
        environment.jersey().register(new CeilingResource(redis));
    }
}
