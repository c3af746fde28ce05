package io.delayq.service.prometheus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL of a Grafana dashboard (JSON model) and the metric names it reads: every panel target's {@code expr}
 * and every query variable's query ({@code label_values(metric, label)} included).
 */
final class DashboardQueries {
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*(.+?)\\s*,\\s*\\w+\\s*\\)");
    /** PromQL words that are not metric names (aggregation modifiers, operators, vector matching). */
    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right", "bool", "and", "or", "unless", "offset", "atan2", "inf", "nan");

    private DashboardQueries() {
    }

    /** One query of a panel: its PromQL and the legend Grafana draws its series with. */
    record Target(String expr, String legend) {
    }

    /** A panel: its title and its queries. */
    record Panel(String title, List<Target> targets) {
    }

    static List<Panel> panels(Path dashboard) throws IOException {
        JsonNode root = new ObjectMapper().readTree(dashboard.toFile());
        List<Panel> panels = new ArrayList<>();
        for (JsonNode panel : root.path("panels")) {
            List<Target> targets = new ArrayList<>();
            for (JsonNode target : panel.path("targets")) {
                targets.add(new Target(target.path("expr").asText(), target.path("legendFormat").asText()));
            }
            panels.add(new Panel(panel.path("title").asText(), targets));
        }
        return panels;
    }

    static List<String> expressions(Path dashboard) throws IOException {
        JsonNode root = new ObjectMapper().readTree(dashboard.toFile());
        List<String> exprs = new ArrayList<>();
        for (JsonNode panel : root.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                exprs.add(target.path("expr").asText());
            }
        }
        for (JsonNode variable : root.path("templating").path("list")) {
            if (variable.path("type").asText().equals("query")) {
                JsonNode query = variable.path("query");
                exprs.add(query.isTextual() ? query.asText() : query.path("query").asText());
            }
        }
        return exprs;
    }

    /** The metric names an expression reads (not functions, keywords, label names, durations or strings). */
    static Set<String> metricNames(String expr) {
        String e = LABEL_VALUES.matcher(expr).replaceAll("$1");
        e = e.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", " ")    // string literals
                .replaceAll("\\{[^}]*}", " ")                   // label matchers
                .replaceAll("\\[[^]]*]", " ")                   // range durations, $__rate_interval
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ") // label lists
                .replaceAll("\\$\\w+", " ");                     // dashboard variables
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(e);
        while (m.find()) {
            String word = m.group();
            boolean function = e.substring(m.end()).stripLeading().startsWith("(");
            boolean number = m.start() > 0 && Character.isDigit(e.charAt(m.start() - 1)); // e.g. the "e" of 1e3
            if (!function && !number && !KEYWORDS.contains(word.toLowerCase())) {
                names.add(word);
            }
        }
        return names;
    }
}
