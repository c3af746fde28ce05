package io.delayq.fault;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SuiteOptionsTest {

    @Test
    void theFullFormIsWhatIssue12AsksFor() {
        SuiteOptions full = SuiteOptions.parse("--full");

        assertThat(full.serviceKills()).isEqualTo(20);
        assertThat(full.archiveCutSeconds()).isEqualTo(60);
        assertThat(full.sameInstantJobs()).isEqualTo(100_000);
        assertThat(full.redisKills()).isPositive();
        assertThat(full.form()).isEqualTo("full");
    }

    @Test
    void oneSizeCanBeChangedAndScenariosChosen() {
        SuiteOptions o = SuiteOptions.parse("--small", "--service-kills", "5", "--only", "kill-service,same-instant",
                "--service-jar", "x.jar");

        assertThat(o.serviceKills()).isEqualTo(5);
        assertThat(o.killJobs()).isEqualTo(SuiteOptions.small().killJobs());
        assertThat(o.runs("kill-service")).isTrue();
        assertThat(o.runs("archive-cut")).isFalse();
        assertThat(o.serviceJar()).isEqualTo(Path.of("x.jar"));
        assertThat(o.form()).startsWith("small, changed:");
    }

    @Test
    void unknownOptionsAndBadNumbersAreRefusedWithWhatToSend() {
        assertThatThrownBy(() -> SuiteOptions.parse("--kills", "3")).hasMessageContaining("unknown option --kills")
                .hasMessageContaining("--service-kills");
        assertThatThrownBy(() -> SuiteOptions.parse("--service-kills", "many"))
                .hasMessageContaining("--service-kills takes a whole number");
        assertThatThrownBy(() -> SuiteOptions.parse("--service-kills")).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> FaultSuite.scenarios(SuiteOptions.parse("--only", "kill-everything")))
                .hasMessageContaining("no scenario 'kill-everything'");
    }
}
