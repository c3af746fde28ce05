package io.delayq.client;

import io.delayq.service.DelayqConfiguration;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client's paged topics and circuits and its topic deletion (issue 26, findings 5 and 12), against the real
 * service: {@code topics(limit, cursor)} pages by name and {@code topics()} follows every page; {@code deleteTopic}
 * refuses a topic with a scheduled job ({@link ConflictException}) and forgets an empty one; {@code circuits} pages.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PagingClientTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestService.app();

    @Test
    void topicsComeInPagesAndAnEmptyTopicIsDeleted() {
        DelayqClient client = TestService.client(APP);
        String topic = TestService.topic();
        JobInfo job = client.schedule(topic, JobRequest.builder().id("j").delay(Duration.ofHours(1))
                .payload(Map.of("n", 1)).build());

        List<String> paged = new ArrayList<>();
        String cursor = null;
        do {
            TopicPage page = client.topics(2, cursor);
            assertThat(page.items().size()).isLessThanOrEqualTo(2);
            page.items().forEach(t -> paged.add(t.topic()));
            cursor = page.nextCursor();
        } while (cursor != null);
        assertThat(paged).isSorted().doesNotHaveDuplicates().contains(topic);
        assertThat(client.topics()).extracting(TopicInfo::topic).containsExactlyElementsOf(paged);

        assertThatThrownBy(() -> client.deleteTopic(topic)).isInstanceOf(ConflictException.class);
        client.cancel(topic, job.id());
        client.deleteTopic(topic);
        assertThat(client.topics()).extracting(TopicInfo::topic).doesNotContain(topic);
    }

    @Test
    void circuitsComeInPages() {
        DelayqClient client = TestService.client(APP);
        CircuitPage first = client.circuits(1, null);
        assertThat(first.items().size()).isLessThanOrEqualTo(1);
        if (first.hasNext()) {
            CircuitPage second = client.circuits(1, first.nextCursor());
            assertThat(second.items()).extracting(CircuitPage.Circuit::origin)
                    .doesNotContainAnyElementsOf(first.items().stream().map(CircuitPage.Circuit::origin).toList());
        }
        assertThatThrownBy(() -> client.circuits(0, null)).isInstanceOf(DelayqException.class);
    }
}
