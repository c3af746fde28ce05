package io.delayq.service.tenants;

import io.delayq.core.JobStore;
import io.delayq.core.NewJob;
import io.delayq.core.archive.TopicScope;
import io.delayq.core.schedule.ScheduleStore;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TopicPattern;
import io.delayq.postgres.PostgresJobStore;
import io.delayq.postgres.PostgresStoreOptions;
import io.delayq.postgres.testing.TestPostgres;
import io.delayq.redis.RedisJobStore;
import io.delayq.redis.testing.TestRedis;
import io.delayq.service.support.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tenant's use (its topics, pending jobs and schedules: what the quota gate and the tenant gauges read) and its
 * topic list (a tenant's {@code GET /v1/topics}) are read by its patterns from the store's index by name, never from
 * the whole topic list: beside 2,000 topics of another team, the store answers no name of theirs. The real store of
 * the run ({@link TestStores#selected()}) is wrapped in a delegate that passes every call through and notes which
 * topic names the store's topic reads answered.
 */
@Tag("both-stores")
class TenantUseTest {
    private static final int OTHERS = 2_000;
    private static final String PAYLOAD = "{}";

    private final String run = "tu" + UUID.randomUUID().toString().substring(0, 8);
    private JobStore real;
    private final Set<String> answered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger wholeListReads = new AtomicInteger();
    private final Map<String, Integer> calls = new ConcurrentHashMap<>();
    private JobStore store;

    @BeforeEach
    void open() {
        real = switch (TestStores.selected()) {
            case REDIS -> RedisJobStore.connect(TestRedis.sharedUri());
            case POSTGRES -> PostgresJobStore.connect(TestPostgres.sharedJdbcUrl(), TestPostgres.user(),
                    TestPostgres.password(), PostgresStoreOptions.defaults());
        };
        store = counting(real);
    }

    @AfterEach
    void close() {
        real.close();
    }

    /**
     * {@value #OTHERS} topics of tenant b; tenant a's topics with jobs and a schedule, beside names that start like its
     * patterns without matching them; a's patterns overlap (a.x.* inside a.*).
     */
    private Tenant fill() {
        List<NewJob> others = new ArrayList<>();
        for (int i = 0; i < OTHERS; i++) {
            others.add(NewJob.delayed(run + ".b.t" + i, "j", PAYLOAD, 3_600_000, 1));
            if (others.size() == 500) {
                real.enqueue(others);
                others.clear();
            }
        }
        for (String[] job : new String[][] {{".a.one", "1"}, {".a.one", "2"}, {".a.two", "1"}, {".a.x.y", "1"},
                {".solo", "1"}, {".solo", "2"}, {".a", "1"}, {".a.", "1"}, {".solo-x", "1"}, {".a-1", "1"}}) {
            real.enqueue(NewJob.delayed(run + job[0], job[1], PAYLOAD, 3_600_000, 1));
        }
        real.schedules().put(run + ".a.sched", "s", "{}", null);
        real.schedules().put(run + ".b.sched", "s", "{}", null);
        return new Tenant(run + "-a", List.of(TopicPattern.of(run + ".a.*"), TopicPattern.of(run + ".solo"),
                TopicPattern.of(run + ".a.x.*")), null, 1, null, false);
    }

    @Test
    void aTenantsUseIsReadFromItsOwnTopicsOnly() {
        Tenant a = fill();
        TenantUse use = new TenantUse(store);

        assertThat(use.topicsOf(a)).containsExactly(run + ".a.one", run + ".a.sched", run + ".a.two", run + ".a.x.y",
                run + ".solo");
        // a.one 2, a.two 1, a.x.y 1, solo 2 jobs; a.sched's schedule counts as one more
        assertThat(use.of(a)).isEqualTo(new TenantUse.Use(5, 7, 1));
        assertThat(use.of(a, run + ".a.new")).as("the topic being admitted into").isEqualTo(new TenantUse.Use(6, 7, 1));
        assertThat(use.ofEach(List.of(a))).containsEntry(a.name(), new TenantUse.Use(5, 7, 1));

        assertThat(wholeListReads).as("topics(): every topic of the store").hasValue(0);
        assertThat(answered).as("names of the store's topic reads")
                .noneMatch(t -> t.startsWith(run + ".b."))
                .allMatch(t -> t.startsWith(run + ".a.") || t.equals(run + ".solo"));
    }

    @Test
    void aTenantsExactNamesAreReadTogetherInOneCall() {
        List<TopicPattern> names = new ArrayList<>();
        List<String> existing = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            names.add(TopicPattern.of(run + ".exact" + i));
            if (i % 3 == 0) {
                real.enqueue(NewJob.delayed(run + ".exact" + i, "j", PAYLOAD, 3_600_000, 1));
                existing.add(run + ".exact" + i);
            }
        }
        TopicScope scope = TopicScope.of(new Tenant(run + "-exact", names, null, 1, null, false));
        calls.clear();

        assertThat(new TenantTopics(store).all(scope)).containsExactlyInAnyOrderElementsOf(existing);
        assertThat(calls).as("store calls by method").containsEntry("topicsAmong", 1)
                .doesNotContainKey("topicsStartingWith");
        calls.clear();
        assertThat(new TenantTopics(store).page(scope, run + ".exact12", 3)).containsExactly(run + ".exact15",
                run + ".exact18", run + ".exact21");
        assertThat(calls).containsEntry("topicsAmong", 1).doesNotContainKey("topicsStartingWith");
    }

    @Test
    void aTenantsTopicListIsPagedFromItsOwnTopicsOnly() {
        Tenant a = fill();
        TenantTopics topics = new TenantTopics(store);
        TopicScope scope = TopicScope.of(a);
        List<String> seen = new ArrayList<>();
        String after = null;
        List<String> page;
        do {
            page = topics.page(scope, after, 2);
            assertThat(page).hasSizeLessThanOrEqualTo(2);
            seen.addAll(page);
            after = page.isEmpty() ? after : page.get(page.size() - 1);
        } while (page.size() == 2);

        // with jobs or settings: a.sched holds only a schedule, so whether it is listed is the store's registry's
        assertThat(seen).as("in name order, each once, the prefix 'a.' itself left out").isSorted()
                .doesNotHaveDuplicates().contains(run + ".a.one", run + ".a.two", run + ".a.x.y", run + ".solo")
                .allMatch(t -> t.startsWith(run + ".a.") && t.length() > (run + ".a.").length()
                        || t.equals(run + ".solo"));
        assertThat(topics.page(scope, run + ".a.two", 10)).as("after a name").containsExactlyElementsOf(
                seen.stream().filter(t -> t.compareTo(run + ".a.two") > 0).toList());
        assertThat(topics.page(TopicScope.of(run + "-gone", List.of()), null, 10)).as("a scope of no pattern")
                .isEmpty();
        assertThat(wholeListReads).hasValue(0);
        assertThat(answered).noneMatch(t -> t.startsWith(run + ".b."));
    }

    /** The store, each call passed through; topic names its topic reads answer are noted, and whole-list reads. */
    @SuppressWarnings("unchecked")
    private JobStore counting(JobStore target) {
        return (JobStore) Proxy.newProxyInstance(JobStore.class.getClassLoader(), new Class<?>[] {JobStore.class},
                (proxy, method, args) -> {
                    Object answer = call(target, method, args);
                    calls.merge(method.getName(), 1, Integer::sum);
                    switch (method.getName()) {
                        case "topics" -> {
                            if (method.getParameterCount() == 0) {
                                wholeListReads.incrementAndGet();
                            }
                            answered.addAll((Collection<String>) answer);
                        }
                        case "topicsStartingWith" -> answered.addAll((Collection<String>) answer);
                        case "schedules" -> answer = countingSchedules((ScheduleStore) answer);
                        default -> {
                        }
                    }
                    return answer;
                });
    }

    @SuppressWarnings("unchecked")
    private ScheduleStore countingSchedules(ScheduleStore target) {
        return (ScheduleStore) Proxy.newProxyInstance(ScheduleStore.class.getClassLoader(),
                new Class<?>[] {ScheduleStore.class}, (proxy, method, args) -> {
                    Object answer = call(target, method, args);
                    if (method.getName().equals("counts")) {
                        answered.addAll(((Map<String, Long>) answer).keySet());
                    }
                    return answer;
                });
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
