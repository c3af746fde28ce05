package io.delayq.fault;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault suite against the shaded service jar, in the form the build asks for ({@code fault.form}: small in
 * {@code ./mvnw verify}, full with {@code -Pfault-full}; {@code fault.args} adds options). Fails when anything
 * acknowledged was lost or ran early, or a scenario broke off; its table is printed either way.
 */
@Tag("slow") // the fault suite against the service jar: ~2 min (CONTRIBUTING.md: the fast run leaves it out)
class FaultSuiteTest {

    @Test
    void nothingAcknowledgedIsLostUnderFaults() throws Exception {
        List<String> args = new ArrayList<>();
        args.add("full".equals(System.getProperty("fault.form")) ? "--full" : "--small");
        String more = System.getProperty("fault.args", "").trim();
        if (!more.isEmpty()) {
            args.addAll(List.of(more.split("\\s+")));
        }
        String report = System.getProperty("fault.report");
        if (report != null && !report.isBlank()) {
            args.add("--report");
            args.add(Path.of(report).toString());
        }
        SuiteReport result = FaultSuite.run(SuiteOptions.parse(args.toArray(String[]::new)), new PrintStream(System.out, true));

        assertThat(result.results()).as("scenarios run").isNotEmpty();
        for (ScenarioResult r : result.results()) {
            assertThat(r.error()).as("%s broke off", r.name()).isNull();
            assertThat(r.tally().acknowledged()).as("%s acknowledged something", r.name()).isPositive();
            assertThat(r.tally().lostSample()).as("%s: acknowledged jobs lost", r.name()).isEmpty();
            assertThat(r.tally().lost()).as("%s: acknowledged jobs lost", r.name()).isZero();
            assertThat(r.tally().early()).as("%s: jobs delivered early", r.name()).isZero();
        }
        assertThat(result.passed()).as(result.text()).isTrue();
    }
}
