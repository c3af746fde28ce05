package io.delayq.service.prometheus;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A strict parser of the Prometheus text format 0.0.4 and of OpenMetrics text 1.0, for the tests (the Prometheus
 * Java client writes these formats but has no parser). Any line it does not understand fails the parse: a sample
 * before its family's TYPE, a malformed label set, an unparseable value, a duplicate series, a histogram without its
 * +Inf bucket, text after OpenMetrics' {@code # EOF} or a missing one.
 */
final class Exposition {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern META = Pattern.compile("# (HELP|TYPE|UNIT) (" + NAME + ")(?: (.*))?");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped", "unknown",
            "info", "stateset", "gaugehistogram");

    record Sample(String name, Map<String, String> labels, double value) {
        String label(String label) {
            return labels.get(label);
        }
    }

    private final Map<String, String> types;
    private final List<Sample> samples;

    private Exposition(Map<String, String> types, List<Sample> samples) {
        this.types = types;
        this.samples = samples;
    }

    static Exposition parseText(String body) {
        return parse(body, false);
    }

    static Exposition parseOpenMetrics(String body) {
        return parse(body, true);
    }

    private static Exposition parse(String body, boolean openMetrics) {
        if (!body.endsWith("\n")) {
            throw new IllegalArgumentException("the exposition does not end with a line feed");
        }
        String[] lines = body.substring(0, body.length() - 1).split("\n", -1);
        Map<String, String> types = new LinkedHashMap<>();
        List<Sample> samples = new ArrayList<>();
        Set<String> series = new HashSet<>();
        boolean eof = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String where = "line " + (i + 1) + ": " + line;
            if (eof) {
                throw new IllegalArgumentException("text after # EOF, " + where);
            }
            if (openMetrics && line.equals("# EOF")) {
                eof = true;
            } else if (line.startsWith("#")) {
                Matcher meta = META.matcher(line);
                if (meta.matches() && meta.group(1).equals("TYPE")) {
                    if (!TYPES.contains(meta.group(3)) || types.put(meta.group(2), meta.group(3)) != null) {
                        throw new IllegalArgumentException("bad or repeated TYPE, " + where);
                    }
                } else if (!meta.matches() && (openMetrics || line.startsWith("# HELP") || line.startsWith("# TYPE"))) {
                    throw new IllegalArgumentException("malformed comment, " + where);
                }
            } else if (line.isEmpty()) {
                if (openMetrics) {
                    throw new IllegalArgumentException("empty line in OpenMetrics, " + where);
                }
            } else {
                Sample sample = sample(line, where);
                if (familyOf(sample.name(), types) == null) {
                    throw new IllegalArgumentException("a sample before (or without) its family's TYPE, " + where);
                }
                if (!series.add(sample.name() + sample.labels())) {
                    throw new IllegalArgumentException("a duplicate series, " + where);
                }
                samples.add(sample);
            }
        }
        if (openMetrics && !eof) {
            throw new IllegalArgumentException("OpenMetrics without # EOF");
        }
        Exposition exposition = new Exposition(types, samples);
        exposition.checkHistograms();
        return exposition;
    }

    /** name, optional {labels}, a space, the value, optionally a space and a timestamp (or an exemplar). */
    private static Sample sample(String line, String where) {
        Matcher name = NAME.matcher(line);
        if (!name.lookingAt()) {
            throw new IllegalArgumentException("no metric name, " + where);
        }
        int at = name.end();
        Map<String, String> labels = new LinkedHashMap<>();
        if (at < line.length() && line.charAt(at) == '{') {
            at = labels(line, at + 1, labels, where);
        }
        if (at >= line.length() || line.charAt(at) != ' ') {
            throw new IllegalArgumentException("no space before the value, " + where);
        }
        String[] rest = line.substring(at + 1).split(" # ", 2)[0].split(" ");
        if (rest.length > 2) {
            throw new IllegalArgumentException("extra fields after the value, " + where);
        }
        return new Sample(name.group(), labels, value(rest[0], where));
    }

    private static int labels(String line, int at, Map<String, String> labels, String where) {
        while (true) {
            if (at < line.length() && line.charAt(at) == '}') {
                return at + 1;
            }
            Matcher label = LABEL_NAME.matcher(line).region(at, line.length());
            if (!label.lookingAt() || !line.startsWith("=\"", label.end())) {
                throw new IllegalArgumentException("malformed label at " + at + ", " + where);
            }
            StringBuilder value = new StringBuilder();
            int i = label.end() + 2;
            for (; i < line.length() && line.charAt(i) != '"'; i++) {
                char c = line.charAt(i);
                if (c == '\\') {
                    char escaped = ++i < line.length() ? line.charAt(i) : 0;
                    switch (escaped) {
                        case '\\' -> value.append('\\');
                        case '"' -> value.append('"');
                        case 'n' -> value.append('\n');
                        default -> throw new IllegalArgumentException("bad escape in a label value, " + where);
                    }
                } else {
                    value.append(c);
                }
            }
            if (i >= line.length()) {
                throw new IllegalArgumentException("unterminated label value, " + where);
            }
            if (labels.put(label.group(), value.toString()) != null) {
                throw new IllegalArgumentException("repeated label " + label.group() + ", " + where);
            }
            at = i + 1;
            if (at < line.length() && line.charAt(at) == ',') {
                at++;
            }
        }
    }

    private static double value(String text, String where) {
        return switch (text) {
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> {
                try {
                    yield Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("not a value: " + text + ", " + where);
                }
            }
        };
    }

    /** The declared family a sample belongs to: its own name, or its name less a family suffix. */
    private static String familyOf(String sample, Map<String, String> types) {
        if (types.containsKey(sample)) {
            return sample;
        }
        for (String suffix : List.of("_total", "_created", "_bucket", "_count", "_sum", "_info", "_gcount", "_gsum")) {
            if (sample.endsWith(suffix) && types.containsKey(sample.substring(0, sample.length() - suffix.length()))) {
                return sample.substring(0, sample.length() - suffix.length());
            }
        }
        return null;
    }

    private void checkHistograms() {
        types.forEach((family, type) -> {
            if (type.equals("histogram")) {
                Map<Map<String, String>, Boolean> infBuckets = new HashMap<>();
                for (Sample s : samples) {
                    if (s.name().equals(family + "_bucket")) {
                        Map<String, String> others = new HashMap<>(s.labels());
                        String le = others.remove("le");
                        if (le == null) {
                            throw new IllegalArgumentException("a bucket without le: " + s);
                        }
                        infBuckets.merge(others, le.equals("+Inf"), Boolean::logicalOr);
                    }
                }
                infBuckets.forEach((labels, hasInf) -> {
                    if (!hasInf) {
                        throw new IllegalArgumentException("histogram " + family + labels + " has no +Inf bucket");
                    }
                });
            }
        });
    }

    /** Every family declared by a TYPE line, by name, with its type, in the order of the exposition. */
    Map<String, String> families() {
        return java.util.Collections.unmodifiableMap(types);
    }

    String type(String family) {
        return types.get(family);
    }

    List<Sample> samples(String name) {
        return samples.stream().filter(s -> s.name().equals(name)).collect(Collectors.toList());
    }

    Set<String> sampleNames() {
        return samples.stream().map(Sample::name).collect(Collectors.toSet());
    }

    /** The value of the one sample of {@code name} with these labels (exactly), or null. */
    Double value(String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && s.labels().equals(labels))
                .map(Sample::value).findFirst().orElse(null);
    }
}
