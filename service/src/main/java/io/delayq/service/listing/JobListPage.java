package io.delayq.service.listing;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.service.api.JobView;

import java.util.List;

/**
 * One page of a topic's jobs.
 *
 * @param items      the jobs, as {@code GET /v1/topics/{topic}/jobs/{id}} shows each (header values masked)
 * @param nextCursor pass as {@code cursor} for the next page; absent on the last page. A page that stopped at the
 *                   bound on what one page reads may hold fewer than {@code limit} jobs, even none, and still have one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobListPage(List<JobView> items, String nextCursor) {
}
