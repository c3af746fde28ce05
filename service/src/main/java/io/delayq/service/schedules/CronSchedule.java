package io.delayq.service.schedules;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The fire times of a cron expression in a time zone, between a start and an end. The expression has six fields,
 * seconds first ({@code "0 0 2 * * *"}: 02:00:00 every day), in Spring's dialect as cron-utils parses it
 * ({@link CronType#SPRING53}: ranges, lists, steps, {@code L}, {@code W}, {@code #}, names of months and days, and
 * macros such as {@code @daily}).
 *
 * <p>The cron fields are wall-clock times of the zone, so cron-utils steps through local date-times (in a zone
 * without daylight saving time, UTC), and each local time is then placed in the zone here, where the two DST rules
 * are:
 * <ul>
 *   <li>fall-back (a local hour happens twice): a wall-clock time fires once, at its first occurrence (the earlier
 *       offset); the repeated hour has no fires of its own;</li>
 *   <li>spring-forward (a local hour is skipped): a time in the gap fires at the next valid instant, the transition
 *       (02:30 in a gap from 02:00 to 03:00 fires at 03:00); several times in one gap are one fire there.</li>
 * </ul>
 * Fire times are therefore strictly increasing instants, and "the next fire after t" is well defined, which is what
 * the store's cursor needs.
 */
public final class CronSchedule {
    private static final CronParser PARSER =
            new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));
    /** Local times looked at for one answer: a second-by-second cron repeated over a fall-back hour is 3,600. */
    private static final int MAX_STEPS = 100_000;

    private final String expression;
    private final ExecutionTime times;
    private final ZoneId zone;
    private final Long startAtMs;
    private final Long endAtMs;

    private CronSchedule(String expression, ExecutionTime times, ZoneId zone, Long startAtMs, Long endAtMs) {
        this.expression = expression;
        this.times = times;
        this.zone = zone;
        this.startAtMs = startAtMs;
        this.endAtMs = endAtMs;
    }

    /**
     * @throws IllegalArgumentException naming what is wrong with {@code cron}
     */
    public static CronSchedule of(String cron, ZoneId zone, Long startAtMs, Long endAtMs) {
        if (cron == null || cron.isBlank()) {
            throw new IllegalArgumentException("cron is required: six fields, seconds first, e.g. \"0 0 2 * * *\"");
        }
        Cron parsed;
        try {
            parsed = PARSER.parse(cron.trim()).validate();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cron " + io.delayq.core.JobRules.quote(cron) + " is not valid: "
                    + e.getMessage() + " (six fields, seconds first: \"sec min hour day-of-month month day-of-week\","
                    + " e.g. \"0 0 2 * * *\" for 02:00:00 every day)");
        }
        return new CronSchedule(cron.trim(), ExecutionTime.forCron(parsed), zone, startAtMs, endAtMs);
    }

    public String expression() {
        return expression;
    }

    public ZoneId zone() {
        return zone;
    }

    /** The first fire strictly after {@code afterMs}, if there is one before the end. */
    public Optional<Long> nextAfter(long afterMs) {
        long from = startAtMs != null ? Math.max(afterMs, startAtMs - 1) : afterMs;
        // Cron times are whole seconds, and cron-utils keeps the fraction it is given: stepping from the whole second
        // finds the first cron time after it, which is the first after the fraction too.
        LocalDateTime local = LocalDateTime.ofInstant(Instant.ofEpochMilli(from), zone).truncatedTo(ChronoUnit.SECONDS);
        for (int step = 0; step < MAX_STEPS; step++) {
            Optional<ZonedDateTime> next = times.nextExecution(local.atZone(ZoneOffset.UTC));
            if (next.isEmpty()) {
                return Optional.empty();
            }
            local = next.get().toLocalDateTime().truncatedTo(ChronoUnit.SECONDS);
            long at = place(local);
            if (endAtMs != null && at > endAtMs) {
                return Optional.empty();
            }
            if (at > from) {
                return Optional.of(at);
            }
            // a local time of a repeated (fall-back) hour already fired at its first occurrence, or a gap time at
            // an instant already passed: on to the next local time
        }
        return Optional.empty();
    }

    /** Up to {@code count} fires after {@code afterMs}. */
    public List<Long> nextAfter(long afterMs, int count) {
        List<Long> out = new ArrayList<>(count);
        long at = afterMs;
        for (int i = 0; i < count; i++) {
            Optional<Long> next = nextAfter(at);
            if (next.isEmpty()) {
                break;
            }
            at = next.get();
            out.add(at);
        }
        return out;
    }

    /**
     * The last fire at or before {@code atMs} and after {@code afterMs}, if any: for catching up on missed fires
     * without stepping through each (cron-utils steps back from a local time; the DST placement is checked by
     * stepping forward from there).
     */
    public Optional<Long> lastAtOrBefore(long atMs, long afterMs) {
        LocalDateTime local = LocalDateTime.ofInstant(Instant.ofEpochMilli(atMs + 1), zone);
        Optional<ZonedDateTime> last = times.lastExecution(local.atZone(ZoneOffset.UTC));
        // one local time earlier than the answer, so that nextAfter finds it (or a later valid one) again
        long from = last.map(l -> place(l.toLocalDateTime()) - 1).orElse(afterMs);
        from = Math.max(afterMs, Math.min(from, atMs));
        Optional<Long> found = Optional.empty();
        for (int step = 0; step < MAX_STEPS; step++) {
            Optional<Long> next = nextAfter(from);
            if (next.isEmpty() || next.get() > atMs) {
                return found;
            }
            found = next;
            from = next.get();
        }
        return found;
    }

    /** A wall-clock time as an instant: the earlier offset in an overlap, the transition in a gap. */
    long place(LocalDateTime local) {
        List<ZoneOffset> offsets = zone.getRules().getValidOffsets(local);
        if (!offsets.isEmpty()) {
            return local.toInstant(offsets.get(0)).toEpochMilli();
        }
        ZoneOffsetTransition gap = zone.getRules().getTransition(local);
        return gap.getInstant().toEpochMilli();
    }
}
