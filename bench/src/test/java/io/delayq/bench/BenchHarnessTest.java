package io.delayq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.bench.report.ReportWriter;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the whole harness once at tiny size, in process, on its own redis-server: proves every workload, adapter and
 * output works. No timing assertions — only that each table, the JSON and the charts were produced.
 */
class BenchHarnessTest {

    @Test
    void aTinyRunWritesEveryTableTheJsonAndTheCharts(@TempDir Path out) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        ReportWriter.Written w = BenchMain.run(new PrintStream(log, true, StandardCharsets.UTF_8),
                "--tiny", "--store", "redis", "--impl", "delayq,redisson,naive", "--only", "W1,W2,W3,W5,CEILING",
                "--out", out.toString());

        String md = Files.readString(w.markdown());
        assertThat(md).contains("### W1 enqueue", "### Redis memory per pending job", "### W2 timing precision",
                "### W3 drain", "### W5 scale");
        for (String table : new String[]{"W1", "MEMORY", "W2", "W3"}) {
            assertThat(section(md, table)).as(table + " rows; harness log:%n%s", log.toString(StandardCharsets.UTF_8)).contains("| delayq |", "| redisson-4.7.0 |", "| naive-jedis-8.0.2 |",
                    "**delayq ÷ best peer**");
        }
        assertThat(md).contains("| delayq @ 1,000 pending |", "| delayq @ 5,000 pending |");
        if (BenchRedis.findOnPath("redis-benchmark") != null) {
            assertThat(md).contains("### Physical limit", "| EVALSHA HSET+ZADD |", "| floor: HASH+ZSET");
        } else {
            assertThat(md).contains("ceiling: skipped: redis-benchmark is not on the PATH");
        }
        for (String png : new String[]{"w1-throughput.png", "w2-lateness.png", "w3-throughput.png"}) {
            Path p = out.resolve(png);
            assertThat(p).exists();
            byte[] head = Files.readAllBytes(p);
            assertThat(head.length).as(png).isGreaterThan(1000);
            assertThat(new String(head, 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
        }
        JsonNode json = new ObjectMapper().readTree(w.json().toFile());
        assertThat(json.get("runs").size()).isGreaterThanOrEqualTo(3 * 3 + 2);
        assertThat(json.get("summary").get("W2").get("delayq").get("lost").get("median").asDouble()).isZero();
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("Redis: redis-server");
    }

    /**
     * The PostgreSQL part at tiny size on its own PostgreSQL server: delayq's JobStore, and graphile-worker and pg-boss
     * when node and npm are on the PATH (their packages are installed by npm ci on first use), W1–W3 and the churn.
     */
    @Test
    @Tag("slow") // ~55 s: a PostgreSQL, graphile-worker and pg-boss (npm ci on a first run) at --tiny size
    void aTinyPostgresRunWritesItsTablesTheJsonAndTheCharts(@TempDir Path out) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        ReportWriter.Written w = BenchMain.run(new PrintStream(log, true, StandardCharsets.UTF_8),
                "--tiny", "--store", "postgres", "--impl", "delayq,graphile-worker,pg-boss", "--only", "W1,W2,W3,CHURN",
                "--out", out.toString());

        String md = Files.readString(w.markdown());
        String harnessLog = log.toString(StandardCharsets.UTF_8);
        assertThat(md).contains("### PostgreSQL W1 enqueue", "### PostgreSQL table and index bytes per pending job",
                "### PostgreSQL W2 timing", "### PostgreSQL W3 drain", "### PostgreSQL steady churn",
                "### PostgreSQL targets", "fsync=on", "synchronous_commit=on");
        boolean node = BenchRedis.findOnPath("node") != null && BenchRedis.findOnPath("npm") != null;
        for (String table : new String[]{"PG-W1", "PG-SIZE", "PG-W2", "PG-W3", "PG-CHURN"}) {
            String section = section(md, table);
            assertThat(section).as(table + " rows; harness log:%n%s", harnessLog).contains("| delayq |");
            if (node) {
                assertThat(section).as(table + " rows; harness log:%n%s", harnessLog)
                        .contains("| graphile-worker-0.17.3 |", "| pg-boss-10.4.2 |", "**delayq ÷ best peer**");
            } else {
                assertThat(section).contains("skipped: node and npm are not both on the PATH");
            }
        }
        if (node) {
            assertThat(section(md, "PG-W2")).contains("| graphile-worker-0.17.3 (pollInterval 100 ms) |");
            assertThat(section(md, "PG-W3")).contains("| graphile-worker-0.17.3 (localQueue 100, batched completes) |");
        }
        for (String png : new String[]{"pg-w1-throughput.png", "pg-w2-lateness.png", "pg-w3-throughput.png"}) {
            Path p = out.resolve(png);
            assertThat(p).exists();
            assertThat(new String(Files.readAllBytes(p), 1, 3, StandardCharsets.US_ASCII)).isEqualTo("PNG");
        }
        JsonNode json = new ObjectMapper().readTree(w.json().toFile());
        JsonNode summary = json.get("summary");
        assertThat(summary.get("PG-W2").get("delayq").get("lost").get("median").asDouble()).isZero();
        assertThat(summary.get("PG-W3").get("delayq").get("lost").get("median").asDouble()).isZero();
        assertThat(summary.get("PG-CHURN").get("delayq").get("lost").get("median").asDouble()).isZero();
        assertThat(summary.get("PG-SIZE").get("delayq").get("bytes_per_job").get("median").asDouble()).isPositive();
        assertThat(summary.get("PG-W1").get("delayq").get("pg_wal_bytes_per_job").get("median").asDouble()).isPositive();
        assertThat(json.get("environment").get("postgres").asText()).startsWith("PostgreSQL 16");
        assertThat(md).doesNotContain("### W1 enqueue", "### Redis memory");
    }

    /**
     * The cluster scaling part at tiny size: it forms Redis Clusters of 1, 2 and 3 masters (and 3 with a replica each)
     * itself, runs W1 bulk and W3 on each and on standalone, and writes a row per configuration and the ratios. W4
     * needs the service jar, absent here: its table says so.
     */
    @Test
    void theClusterScalingPartFormsItsClustersAndWritesARowPerConfiguration(@TempDir Path out) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        ReportWriter.Written w = BenchMain.run(new PrintStream(log, true, StandardCharsets.UTF_8),
                "--tiny", "--store", "cluster", "--only", "W1,W3,W4", "--service-jar", out.resolve("missing.jar").toString(),
                "--out", out.toString());

        String md = Files.readString(w.markdown());
        String harnessLog = log.toString(StandardCharsets.UTF_8);
        String replicated = "| cluster, 3 masters + 1 replica each, minReplicas ";
        assertThat(sectionFrom(md, "### Cluster scaling: W1 bulk")).as(harnessLog).contains("| standalone |",
                "| cluster, 1 master |", "| cluster, 2 masters |", "| cluster, 3 masters |", replicated + "0 |",
                replicated + "1 |");
        assertThat(sectionFrom(md, "### Cluster scaling: W3 drain")).as(harnessLog).contains("| standalone |",
                "| cluster, 1 master |", "| cluster, 2 masters |", "| cluster, 3 masters |").doesNotContain(replicated);
        assertThat(sectionFrom(md, "### Cluster scaling: W4")).contains("skipped: service jar not found");
        assertThat(sectionFrom(md, "### Cluster scaling: ratios")).contains("| 2 masters ÷ 1 master |",
                "| 3 masters ÷ 1 master |", "| cluster of 1 master ÷ standalone |",
                "| minReplicas 1 ÷ minReplicas 0 (3 masters + 1 replica each) |");
        JsonNode summary = new ObjectMapper().readTree(w.json().toFile()).get("summary");
        for (String row : new String[]{"standalone", "cluster, 1 master", "cluster, 2 masters", "cluster, 3 masters"}) {
            assertThat(summary.get("SCALE-W3").get(row).get("lost").get("median").asDouble()).as(row).isZero();
        }
        // Redis cost is summed over the masters: with the same 6 partitions, a 3-master cluster makes the calls per job
        // one server makes (counting a single master would show about a third)
        double standalone = summary.get("SCALE-W1").get("standalone").get("bulk_redis_calls_per_job").get("median").asDouble();
        double threeMasters = summary.get("SCALE-W1").get("cluster, 3 masters").get("bulk_redis_calls_per_job")
                .get("median").asDouble();
        assertThat(threeMasters).isPositive().isGreaterThan(0.8 * standalone);
        assertThat(md).doesNotContain("### W1 enqueue", "### PostgreSQL W1 enqueue");
    }

    @Test
    void serviceWorkloadsSayWhyTheyWereSkippedWhenThereIsNoServiceJar(@TempDir Path out) throws Exception {
        ReportWriter.Written w = BenchMain.run(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                "--tiny", "--only", "W4,W6,NOISY", "--service-jar", out.resolve("missing.jar").toString(), "--out",
                out.toString());
        String md = Files.readString(w.markdown());
        assertThat(sectionFrom(md, "### Noisy neighbour on Redis")).contains("skipped: service jar not found");
        assertThat(sectionFrom(md, "### Noisy neighbour on PostgreSQL")).contains("skipped: service jar not found");
        assertThat(md).contains("### W4 end to end over HTTP", "### W6 failure", "### PostgreSQL W4 end to end over HTTP",
                "delayq-service: skipped: service jar not found");
        assertThat(section(md, "PG-W4")).contains("delayq-service: skipped: service jar not found");
    }

    /**
     * The noisy neighbour at tiny size through the real service jar (built by the reactor before this module's tests)
     * on the bench Redis: a row for B alone and for each form of A's burst, nothing lost. No timing assertions.
     */
    @Test
    @Tag("slow")
    void theNoisyNeighbourRunsTwoTenantsOnTheServiceAndWritesItsRows(@TempDir Path out) throws Exception {
        Path jar = BenchOptions.defaultServiceJar();
        Assumptions.assumeTrue(ServiceWorkloads.hasApplication(jar), "the service jar is built by ./mvnw package");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        ReportWriter.Written w = BenchMain.run(new PrintStream(log, true, StandardCharsets.UTF_8),
                "--tiny", "--store", "redis", "--only", "NOISY", "--out", out.toString());

        String section = sectionFrom(Files.readString(w.markdown()), "### Noisy neighbour on Redis");
        assertThat(section).as("harness log:%n%s", log.toString(StandardCharsets.UTF_8))
                .contains("| B alone |", "| A's burst in 1 topic |", "| A's burst over 30 topics |");
        JsonNode rows = new ObjectMapper().readTree(w.json().toFile()).get("summary").get("NOISY");
        for (String row : new String[]{"B alone", "A's burst in 1 topic", "A's burst over 30 topics"}) {
            assertThat(rows.get(row).get("a_lost").get("median").asDouble()).as(row).isZero();
            assertThat(rows.get(row).get("b_lost").get("median").asDouble()).as(row).isZero();
            assertThat(rows.get(row).get("b_jobs").get("median").asDouble()).as(row).isPositive();
        }
        assertThat(rows.get("A's burst over 30 topics").get("a_jobs_per_s").get("median").asDouble()).isPositive();
    }

    @Test
    void badOptionsAreRefusedWithUsage() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--only", "W9"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown workload 'W9'");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--impl", "kafka"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("choose from");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchOptions.parse("--store", "mongo"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown store 'mongo'");
        BenchOptions pgPeers = BenchOptions.parse("--store", "postgres", "--impl", "graphile-worker,pg-boss", "--only", "churn");
        assertThat(pgPeers.postgresPart()).isTrue();
        assertThat(pgPeers.redisPart()).isFalse();
        assertThat(pgPeers.runs("CHURN")).isTrue();
        assertThat(BenchOptions.parse().store()).isEqualTo("both");
    }

    private static String sectionFrom(String md, String heading) {
        int from = md.indexOf(heading);
        assertThat(from).as("heading " + heading + " in%n" + md).isNotNegative();
        int to = md.indexOf("\n### ", from + 1);
        return md.substring(from, to < 0 ? md.length() : to);
    }

    /** The text of one table: from its heading to the next heading. */
    private static String section(String md, String table) {
        String heading = switch (table) {
            case "W1" -> "### W1 enqueue";
            case "MEMORY" -> "### Redis memory";
            case "W2" -> "### W2 timing";
            case "PG-W1" -> "### PostgreSQL W1 enqueue";
            case "PG-SIZE" -> "### PostgreSQL table and index bytes";
            case "PG-W2" -> "### PostgreSQL W2 timing";
            case "PG-W3" -> "### PostgreSQL W3 drain";
            case "PG-W4" -> "### PostgreSQL W4 end to end";
            case "PG-CHURN" -> "### PostgreSQL steady churn";
            default -> "### W3 drain";
        };
        int from = md.indexOf(heading);
        int to = md.indexOf("\n### ", from + 1);
        return md.substring(from, to < 0 ? md.length() : to);
    }
}
