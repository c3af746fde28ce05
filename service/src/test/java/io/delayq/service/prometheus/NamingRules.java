package io.delayq.service.prometheus;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Prometheus's naming conventions (https://prometheus.io/docs/practices/naming/) as checks of a scraped exposition
 * (text format 0.0.4, where a counter's family is named with its {@code _total}):
 * <ul>
 *   <li>snake_case: {@code ^[a-z_][a-z0-9_]*$};</li>
 *   <li>a counter ends in {@code _total}, nothing else does;</li>
 *   <li>a declared type (counter, gauge, histogram, summary), and no family named with a suffix Prometheus reserves
 *   for the samples of other kinds ({@code _count}, {@code _sum}, {@code _bucket}, {@code _created}; {@code _info}
 *   only on an info gauge);</li>
 *   <li>base units: no milliseconds, microseconds, nanoseconds, minutes, hours, kilo-, mega- or gigabytes, percent
 *   (a ratio is 0..1 and says {@code _ratio});</li>
 *   <li>a unit is the name's last word (before {@code _total}), and a histogram or summary is in seconds or bytes;</li>
 *   <li>no two families differing only by their unit or by {@code _total}, which readers cannot tell apart.</li>
 * </ul>
 */
final class NamingRules {
    private static final Pattern SNAKE_CASE = Pattern.compile("^[a-z_][a-z0-9_]*$");
    /** Words naming a unit that is not a base unit, or a percentage. */
    private static final Set<String> NOT_BASE_UNITS = Set.of("ms", "millis", "milliseconds", "msec", "us", "micros",
            "microseconds", "ns", "nanos", "nanoseconds", "minute", "minutes", "hour", "hours", "day", "days",
            "kb", "kib", "kilobytes", "mb", "mib", "megabytes", "gb", "gib", "gigabytes", "percent", "percentage");
    private static final Set<String> BASE_UNITS = Set.of("seconds", "bytes");
    private static final List<String> FOREIGN_SUFFIXES = List.of("_count", "_sum", "_bucket", "_created", "_info");

    private NamingRules() {
    }

    /** Every rule a family of the exposition breaks, one line each ("name (type): rule"); empty when none. */
    static List<String> violations(Exposition exposition) {
        List<String> out = new ArrayList<>();
        Map<String, String> byBase = new HashMap<>();
        exposition.families().forEach((name, type) -> {
            String where = name + " (" + type + "): ";
            if (!SNAKE_CASE.matcher(name).matches()) {
                out.add(where + "not snake_case");
            }
            if (!Set.of("counter", "gauge", "histogram", "summary").contains(type)) {
                out.add(where + "of no known type: say counter, gauge, histogram or summary");
            }
            boolean counter = type.equals("counter");
            if (counter != name.endsWith("_total")) {
                out.add(where + (counter ? "a counter must end in _total" : "only a counter ends in _total"));
            }
            boolean distribution = type.equals("histogram") || type.equals("summary");
            for (String suffix : FOREIGN_SUFFIXES) {
                boolean infoMetric = suffix.equals("_info") && type.equals("gauge"); // the convention's info gauge
                if (name.endsWith(suffix) && !infoMetric) {
                    out.add(where + "ends in " + suffix + ", a suffix Prometheus reserves for other kinds");
                }
            }
            List<String> words = List.of((counter ? name.substring(0, name.length() - "_total".length()) : name)
                    .split("_"));
            for (int i = 0; i < words.size(); i++) {
                String word = words.get(i);
                if (NOT_BASE_UNITS.contains(word)) {
                    out.add(where + "'" + word + "' is not a base unit (seconds, bytes, a ratio)");
                }
                if (BASE_UNITS.contains(word) && i != words.size() - 1) {
                    out.add(where + "the unit '" + word + "' must be the name's last word");
                }
            }
            if (distribution && !BASE_UNITS.contains(words.get(words.size() - 1))) {
                out.add(where + "a " + type + " must be in seconds or bytes (_seconds, _bytes)");
            }
            String base = String.join("_", words.stream().filter(w -> !BASE_UNITS.contains(w)
                    && !NOT_BASE_UNITS.contains(w)).toList());
            String other = byBase.putIfAbsent(base, name);
            if (other != null) {
                out.add(where + "differs from " + other + " only by its unit or _total");
            }
        });
        return out;
    }
}
