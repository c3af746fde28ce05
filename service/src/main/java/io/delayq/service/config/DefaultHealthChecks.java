package io.delayq.service.config;

import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.health.DefaultHealthFactory;
import io.dropwizard.health.HealthCheckConfiguration;
import io.dropwizard.health.HealthCheckType;
import io.dropwizard.health.HealthFactory;
import io.dropwizard.health.HealthStateAggregator;
import io.dropwizard.health.Schedule;
import io.dropwizard.util.Duration;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The {@code health:} block's checks by default: which of the service's health checks Dropwizard's health module runs
 * on a schedule, and which of them take the instance out of a load balancer ({@code /health-check} on the application
 * port answers 503 while a critical one is unhealthy).
 *
 * <table>
 *   <caption>checks</caption>
 *   <tr><th>check</th><th>critical</th><th>why</th></tr>
 *   <tr><td>{@code store}</td><td>yes</td><td>no request can be served without the job store</td></tr>
 *   <tr><td>{@code engine}</td><td>yes</td><td>an instance whose delivery engine stopped or cannot sweep does not do
 *       its work; another should</td></tr>
 *   <tr><td>{@code deadlocks}</td><td>yes ({@code type: alive})</td><td>deadlocked threads do not recover: a restart
 *       does ({@code /health-check?type=alive} answers 503)</td></tr>
 *   <tr><td>{@code archive}, {@code archiver}</td><td>no</td><td>jobs are scheduled and delivered while the archive is
 *       down (finished jobs wait in the store's outbox): draining every instance for it would stop all of that</td></tr>
 * </table>
 *
 * {@code callback-endpoints} and {@code dead-notices} are never unhealthy (a receiver that is down is not delayq's
 * outage) and are not scheduled: {@code /healthcheck} shows their messages when asked, and the circuits' snapshot is
 * not read every interval for nothing.
 *
 * Every check every {@value #INTERVAL_TEXT}, healthy or not (Dropwizard waits 30 s between checks of an unhealthy one,
 * so an instance would come back up to a minute late); unhealthy after 3 failures in a row, healthy again after 2
 * successes. A configuration's {@code health: {healthChecks: […]}} replaces the entries it names; those it leaves out
 * keep these defaults, so that a {@code health:} block written for one setting does not unschedule the store's check.
 */
public final class DefaultHealthChecks {
    static final String INTERVAL_TEXT = "2 s";
    private static final Duration INTERVAL = Duration.seconds(2);
    private static final int FAILURE_ATTEMPTS = 3;
    private static final int SUCCESS_ATTEMPTS = 2;

    private DefaultHealthChecks() {
    }

    /**
     * The health factory to use: {@code configured} (or Dropwizard's default factory when the configuration has no
     * {@code health:} block) with an entry for every default check it does not name.
     */
    public static HealthFactory complete(HealthFactory configured) {
        HealthFactory factory = configured == null ? new DefaultHealthFactory() : configured;
        if (factory instanceof DefaultHealthFactory health) {
            List<HealthCheckConfiguration> checks = new ArrayList<>(health.getHealthCheckConfigurations());
            Set<String> named = checks.stream().map(HealthCheckConfiguration::getName).collect(Collectors.toSet());
            for (HealthCheckConfiguration check : defaults()) {
                if (!named.contains(check.getName())) {
                    checks.add(check);
                }
            }
            health.setHealthCheckConfigurations(checks);
        }
        return factory;
    }

    /** The defaults themselves (see the table above). */
    public static List<HealthCheckConfiguration> defaults() {
        return List.of(
                check("store", true, HealthCheckType.READY),
                check("engine", true, HealthCheckType.READY),
                check("deadlocks", true, HealthCheckType.ALIVE),
                check("archive", false, HealthCheckType.READY),
                check("archiver", false, HealthCheckType.READY));
    }

    private static HealthCheckConfiguration check(String name, boolean critical, HealthCheckType type) {
        Schedule schedule = new Schedule();
        schedule.setCheckInterval(INTERVAL);
        schedule.setDowntimeInterval(INTERVAL);
        schedule.setFailureAttempts(FAILURE_ATTEMPTS);
        schedule.setSuccessAttempts(SUCCESS_ATTEMPTS);
        HealthCheckConfiguration check = new HealthCheckConfiguration();
        check.setName(name);
        check.setCritical(critical);
        check.setType(type);
        check.setSchedule(schedule);
        return check;
    }

    /**
     * The health module's view of the scheduled checks, for {@code delayq_store_up} and {@code delayq_archive_up};
     * empty when the {@code health:} block is disabled ({@code enabled: false}), so that nothing asks the module for
     * what it never set up.
     */
    public static Optional<HealthStateAggregator> scheduled(Configuration config, Environment environment) {
        Optional<HealthFactory> factory = config.getHealthFactory();
        if (factory.isEmpty() || factory.get() instanceof DefaultHealthFactory health && !health.isEnabled()) {
            return Optional.empty();
        }
        try {
            return Optional.of(environment.health().healthStateAggregator());
        } catch (IllegalStateException notSetUp) { // another HealthFactory type that did not set one up
            return Optional.empty();
        }
    }
}
