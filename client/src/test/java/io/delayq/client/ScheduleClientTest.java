package io.delayq.client;

import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Recurring schedules through the client: put, read, list, pause, resume, run now, delete. */
@ExtendWith(DropwizardExtensionsSupport.class)
class ScheduleClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    @Test
    void managesASchedule() {
        DelayqClient client = TestService.client(APP);
        String topic = TestService.topic();
        ScheduleSpec spec = new ScheduleSpec("0 0 2 * * *", "Europe/Berlin", null, null,
                new ScheduleSpec.Job(Map.of("report", "nightly"), null, 3, null, null, null, null), "once", "5m",
                null);
        ScheduleInfo put = client.putSchedule(topic, "nightly", spec);
        assertThat(put.cron()).isEqualTo("0 0 2 * * *");
        assertThat(put.misfire()).isEqualTo("once");
        assertThat(put.nextFireTimes()).hasSize(5);
        assertThat(client.getSchedule(topic, "nightly").job().path("payload").path("report").asText())
                .isEqualTo("nightly");
        client.putSchedule(topic, "another", spec);
        SchedulePage page = client.schedules(topic, 1, null);
        assertThat(page.items()).extracting(ScheduleInfo::name).containsExactly("another");
        assertThat(client.schedules(topic, 1, page.nextCursor()).items()).extracting(ScheduleInfo::name)
                .containsExactly("nightly");

        assertThat(client.pauseSchedule(topic, "nightly").paused()).isTrue();
        assertThat(client.resumeSchedule(topic, "nightly").paused()).isFalse();
        String jobId = client.runScheduleNow(topic, "nightly");
        assertThat(jobId).startsWith(":nightly:run-");
        assertThat(client.get(topic, jobId).id()).isEqualTo(jobId);
        assertThat(client.getSchedule(topic, "nightly").lastFires()).extracting(ScheduleInfo.Fire::kind)
                .containsExactly("run_now");

        client.deleteSchedule(topic, "nightly");
        assertThatThrownBy(() -> client.getSchedule(topic, "nightly")).isInstanceOf(NotFoundException.class);
    }
}
