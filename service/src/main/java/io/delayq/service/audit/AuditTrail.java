package io.delayq.service.audit;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.delayq.core.archive.AuditEntry;
import io.delayq.core.archive.JobArchive;
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

    /** Records that the caller did {@code action} to {@code target}, changing {@code count} jobs or letters. */
    public void record(SecurityContext caller, String action, String target, long count, String detail) {
        String actor = caller == null || caller.getUserPrincipal() == null ? "?" : caller.getUserPrincipal().getName();
        record(actor, action, target, count, detail);
    }

    public void record(String actor, String action, String target, long count, String detail) {
        AuditEntry entry = new AuditEntry(UUID.randomUUID().toString(), clock.getAsLong(), actor, action, target, count,
                detail);
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
