package io.delayq.redis;

import io.delayq.core.Delivery;
import io.delayq.core.JobRef;
import io.delayq.core.LeaseRef;
import io.delayq.core.NewJob;
import io.delayq.core.StoreStatus;
import io.delayq.redis.Scripts.Op;
import io.delayq.redis.testing.TestRedis;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class ScriptsTest {
    private static final Path LUA = Path.of("src/main/resources/io/delayq/redis/lua");

    @Test
    void everyScriptLoadsIntoARealServer() {
        try (UnifiedJedis redis = RedisClient.create(TestRedis.sharedUri())) {
            Scripts scripts = new Scripts(redis);
            scripts.loadAll(RedisKeys.TOPICS);
            for (Op op : Op.values()) {
                assertThat(redis.scriptExists(scripts.sha(op), RedisKeys.TOPICS)).as(op.resource()).isTrue();
            }
        }
    }

    @Test
    void includesAreResolved() throws IOException {
        int including = 0;
        try (UnifiedJedis redis = RedisClient.create(TestRedis.sharedUri())) {
            Scripts scripts = new Scripts(redis);
            for (Op op : Op.values()) {
                String source = scripts.source(op);
                assertThat(source).as(op.resource()).doesNotContain("--#include");
                // the tenancy and rate limit scripts include nothing: they use no job record
                if (Files.readString(LUA.resolve(op.resource())).contains("--#include lib/record.lua")) {
                    assertThat(source).as(op.resource()).contains("local function now_ms()");
                    including++;
                }
            }
        }
        assertThat(including).isGreaterThanOrEqualTo(17);
    }

    @Test
    void everyOperationHasAScriptWithAContractHeader() throws IOException {
        for (Op op : Op.values()) {
            String text = Files.readString(LUA.resolve(op.resource()));
            assertThat(text).as(op.resource()).startsWith("-- " + op.resource().replace(".lua", "") + ":")
                    .contains("-- KEYS[1]").containsPattern("-- ARGV(\\[1]| none)").containsPattern("-- Returns");
        }
    }

    @Test
    void noScriptScansTheKeyspaceOrBuildsKeyNames() throws IOException {
        Pattern forbidden = Pattern.compile("redis\\.call\\(\\s*'(KEYS|SCAN|HSCAN|ZSCAN|SSCAN|FLUSHDB|FLUSHALL)'",
                Pattern.CASE_INSENSITIVE);
        Pattern keyLiteral = Pattern.compile("'dq:(?!wake')[^']*'");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(LUA)) {
            files = walk.filter(p -> p.toString().endsWith(".lua")).toList();
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(Op.values().length + 1);
        for (Path file : files) {
            String text = Files.readString(file);
            Matcher bad = forbidden.matcher(text);
            assertThat(bad.find()).as("%s calls %s", file, bad.find() ? bad.group(1) : "").isFalse();
            assertThat(keyLiteral.matcher(text).find()).as("%s names a key instead of taking it from KEYS", file).isFalse();
            assertThat(text).as(file.toString()).doesNotContainIgnoringCase("'scan'").doesNotContainIgnoringCase("\"keys\"");
        }
    }

    @Test
    void base36InLuaMatchesJava() {
        List<String> values = List.of("0", "1", "35", "36", "1295", "78364164095", "78364164096", "1795336663840",
                "2821109907455", "2821109907456", "4000000000000000");
        String script = Scripts.source("lib/record.lua")
                + "\nlocal out = {} for i, v in ipairs(ARGV) do out[i] = b36(tonumber(v)) end return out";
        try (UnifiedJedis redis = RedisClient.create(TestRedis.sharedUri())) {
            List<?> answer = (List<?>) redis.eval(script, List.of(), values);
            for (int i = 0; i < values.size(); i++) {
                assertThat(answer.get(i)).as(values.get(i)).isEqualTo(Long.toString(Long.parseLong(values.get(i)), 36));
            }
        }
    }

    @Test
    void aFlushedScriptCacheIsReloadedAndTheCallRetried() {
        String uri = TestRedis.sharedUri();
        String topic = "t-" + UUID.randomUUID();
        try (RedisJobStore store = RedisJobStore.connect(uri, RedisStoreOptions.defaults().withPartitions(2, Map.of()));
             UnifiedJedis admin = RedisClient.create(uri)) {
            admin.scriptFlush();
            assertThat(store.enqueue(NewJob.delayed(topic, "a", "{}", 0, 3)).created()).isTrue();

            admin.scriptFlush();
            // a batch over two partitions goes through a pipeline: each NOSCRIPT answer is repeated
            List<NewJob> batch = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                batch.add(NewJob.delayed(topic, "b" + i, "{}", 0, 3));
            }
            assertThat(store.enqueue(batch)).allSatisfy(r -> assertThat(r.created()).isTrue());

            admin.scriptFlush();
            var leases = store.reserve(topic, Delivery.PULL, 100, 30_000).leases();
            assertThat(leases).hasSize(21);
            admin.scriptFlush();
            assertThat(store.ack(leases.stream().map(LeaseRef::of).toList())).containsOnly(StoreStatus.OK);
            assertThat(store.find(new JobRef(topic, "a")).orElseThrow().state().isFinal()).isTrue();
        }
    }
}
