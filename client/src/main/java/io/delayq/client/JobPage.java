package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import java.util.List;

/**
 * One page of a topic's jobs.
 *
 * @param items      the jobs
 * @param nextCursor give it to {@link JobQuery#cursor} for the next page; {@code null} on the last page. A page may
 *                   hold fewer than its limit, even none, and still have one (a payload search reads at most 1,000
 *                   jobs a page): go on until it is {@code null}
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record JobPage(List<JobInfo> items, String nextCursor) {
    public JobPage {
        items = items == null ? List.of() : List.copyOf(items);
    }

    public boolean hasNext() {
        return nextCursor != null;
    }
}
