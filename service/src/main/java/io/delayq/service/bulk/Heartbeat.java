package io.delayq.service.bulk;

import io.delayq.core.archive.BulkOperation;
import io.delayq.core.archive.OperatorLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Reports a running operation's unchanged progress every {@code intervalMs} while one long call works for it (a purge
 * is one archive call that may take minutes), so that it is not shown as stalled, which a running operation is after
 * {@link BulkOperation#STALE_AFTER_MS} without a report. Closed before the operation's next real report: no beat is
 * written after {@link #close()} returns, so a late beat can never follow, and hide, the final state.
 */
final class Heartbeat implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Heartbeat.class);

    private final Object lock = new Object();
    private final ScheduledFuture<?> beats;
    private boolean closed;

    Heartbeat(ScheduledExecutorService timer, OperatorLog log, BulkOperation progress, LongSupplier clock,
              long intervalMs) {
        this.beats = timer.scheduleAtFixedRate(() -> beat(log, progress, clock), intervalMs, intervalMs,
                TimeUnit.MILLISECONDS);
    }

    private void beat(OperatorLog log, BulkOperation progress, LongSupplier clock) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            try {
                log.report(progress.progressed(progress.done(), progress.failed(), null, clock.getAsLong()));
            } catch (RuntimeException e) {
                // The next beat tries again; an archive that stays away shows the operation as stalled, as it is.
                LOG.debug("bulk operation {}: its heartbeat could not be written ({})", progress.id(), e.toString());
            }
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
        }
        beats.cancel(false);
    }
}
