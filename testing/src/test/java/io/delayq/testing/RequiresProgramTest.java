package io.delayq.testing;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/** Runs small classes through the JUnit launcher, as surefire does, and reads what it reports. */
class RequiresProgramTest {
    static final List<String> CALLS = new CopyOnWriteArrayList<>();

    @RequiresProgram(value = "delayq-no-such-program", debianPackage = "delayq-no-such-package")
    static class NeedsAMissingProgram {
        @BeforeAll
        static void startIt() {
            CALLS.add("beforeAll");
        }

        @AfterAll
        static void stopIt() {
            CALLS.add("afterAll");
        }

        @Test
        void one() {
            CALLS.add("one");
        }

        @Test
        void two() {
            CALLS.add("two");
        }
    }

    static class OneTestNeedsAMissingProgram {
        @Test
        @RequiresProgram(value = "sh", debianPackage = "dash")
        @RequiresProgram(value = "/no/such/dir/prog", debianPackage = "delayq-other-package")
        void needsBoth() {
            CALLS.add("needsBoth");
        }

        @Test
        @RequiresProgram(value = "sh", debianPackage = "dash")
        void needsAShell() {
            CALLS.add("needsAShell");
        }
    }

    private static TestExecutionSummary run(Class<?> testClass) {
        CALLS.clear();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        launcher.execute(request().selectors(selectClass(testClass)).build(), summary);
        return summary.getSummary();
    }

    @Test
    void eachTestOfAClassNeedingAMissingProgramIsSkippedAndNothingOfItRuns() {
        TestExecutionSummary summary = run(NeedsAMissingProgram.class);
        assertThat(summary.getTestsSkippedCount()).isEqualTo(2);
        assertThat(summary.getTestsFailedCount()).isZero();
        assertThat(CALLS).isEmpty();
    }

    @Test
    void aMethodNeedingAMissingProgramIsSkippedAndTheOthersRun() {
        TestExecutionSummary summary = run(OneTestNeedsAMissingProgram.class);
        assertThat(summary.getTestsSkippedCount()).isEqualTo(1);
        assertThat(summary.getTestsSucceededCount()).isEqualTo(1);
        assertThat(CALLS).containsExactly("needsAShell");
    }

    @Test
    void findsProgramsOnThePathOrByAbsolutePath() {
        assertThat(RequiresProgramExtension.installed("sh")).isTrue();
        assertThat(RequiresProgramExtension.installed("/bin/sh")).isTrue();
        assertThat(RequiresProgramExtension.installed("delayq-no-such-program")).isFalse();
        assertThat(RequiresProgramExtension.installed("/no/such/dir/prog")).isFalse();
    }
}
