package io.delayq.redis;

import io.delayq.core.Callback;
import io.delayq.core.Job;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Records as the scripts write them, read back; no server needed (the codec is plain text). */
class RecordCodecTest {
    private final RecordCodec codec = new RecordCodec();

    /** A leased push record (see lua/lib/record.lua) whose callback is {@code callbackJson}. */
    private static String record(String callbackJson) {
        String quoted = callbackJson.replace("\\", "\\\\").replace("\"", "\\\"");
        return "LP1|a|mwz6b6vz|mwz8gcnz|UUCN0YPD|{\"t\":\"abcdefghijklmnopqrstuv\",\"cb\":\"" + quoted + "\"}\n{\"n\":1}";
    }

    @Test
    void eachRecordReadsItsOwnCallbackWhenManyShareOneAndPastTheRememberedOnes() {
        String shared = "{\"url\":\"http://127.0.0.1:9000/cb\",\"headers\":{\"X-Key\":\"one\"}}";
        Job first = codec.decode("t", "1", record(shared));
        Job second = codec.decode("t", "2", record(shared));
        assertThat(first.callback()).isEqualTo(new Callback("http://127.0.0.1:9000/cb", Map.of("X-Key", "one")));
        assertThat(second.callback()).isEqualTo(first.callback());

        // the same URL with another header value is another callback, never the remembered one
        Job other = codec.decode("t", "3",
                record("{\"url\":\"http://127.0.0.1:9000/cb\",\"headers\":{\"X-Key\":\"two\"}}"));
        assertThat(other.callback().headers()).containsEntry("X-Key", "two");

        // more distinct callbacks than are remembered: each still reads as written
        for (int i = 0; i < 10_050; i++) {
            Job job = codec.decode("t", "n" + i, record("{\"url\":\"http://127.0.0.1:9000/cb/" + i + "\"}"));
            assertThat(job.callback().url()).isEqualTo("http://127.0.0.1:9000/cb/" + i);
        }
        assertThat(codec.decode("t", "4", record(shared)).callback().headers()).containsEntry("X-Key", "one");
    }
}
