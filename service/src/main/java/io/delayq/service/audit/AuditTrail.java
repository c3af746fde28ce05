package io.delayq.service.audit;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.archive.AuditEntry;
import io.delayq.core.archive.JobArchive;
import io.delayq.service.auth.Scope;
import jakarta.ws.rs.core.SecurityContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * Writes what operators do to the archive's audit log ({@link io.delayq.core.archive.OperatorLog#audit}). Called after
 * the action succeeded: an entry that cannot be written (archive down) does not undo the action; it is logged in full
 * at WARN (so the service log holds it) and counted in {@code delayq.audit.write-failures}.
 */
public final class AuditTrail {
    private static final Logger LOG = LoggerFactory.getLogger(AuditTrail.class);

    private final JobArchive archive;
    private final LongSupplier clock;
    private final Counter failures;

    public AuditTrail(JobArchive archive, LongSupplier clock, MetricRegistry metrics) {
        this.archive = archive;
        this.clock = clock;
        this.failures = metrics.counter("delayq.audit.write-failures");
    }

    /**
     * Records that the caller did {@code action} to {@code target}, changing {@code count} jobs or letters; the entry
     * is the caller's tenant's (a tenant's token), or operators' only.
     */
    public void record(SecurityContext caller, String action, String target, long count, String detail) {
        record(caller, null, action, target, count, detail);
    }

    /**
     * As {@link #record(SecurityContext, String, String, long, String)}, for an action on one {@code topic} (or on no
     * single topic, {@code null}): an operator's action on a tenant's topic is also that tenant's entry, so that the
     * tenant reads it in its audit log.
     */
    public void record(SecurityContext caller, String topic, String action, String target, long count,
                       String detail) {
        String actor = caller == null || caller.getUserPrincipal() == null ? "?" : caller.getUserPrincipal().getName();
        String tenant = caller == null ? null : Scope.of(caller).auditTenant(topic);
        record(actor, tenant, action, target, count, detail);
    }

    /** An entry of operators only. */
    public void record(String actor, String action, String target, long count, String detail) {
        record(actor, null, action, target, count, detail);
    }

    /** An entry of {@code tenant} ({@code null}: operators only). */
    public void record(String actor, String tenant, String action, String target, long count, String detail) {
        AuditEntry entry = new AuditEntry(UUID.randomUUID().toString(), clock.getAsLong(), actor, action, target, count,
                detail, tenant);
        try {
            archive.operatorLog().audit(entry);
            LOG.info("audit: {} {} {} ({}){}", actor, action, target, count, detail == null ? "" : ": " + detail);
        } catch (RuntimeException e) {
            failures.inc();
            LOG.warn("audit entry not written ({}): {} {} {} ({}){}", e.toString(), actor, action, target, count,
                    detail == null ? "" : ": " + detail);
        }
    }
}
