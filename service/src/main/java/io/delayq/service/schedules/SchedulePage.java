package io.delayq.service.schedules;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * A page of {@code GET /v1/topics/{topic}/schedules}, in name order.
 *
 * @param nextCursor pass as {@code cursor} to read on; absent on the last page
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SchedulePage(List<ScheduleView> items, String nextCursor) {
}
