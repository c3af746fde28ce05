package io.delayq.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * The answer to a batch schedule.
 *
 * @param created  jobs scheduled by this request
 * @param existing jobs that already existed with the same content (idempotent repeats)
 * @param failed   jobs refused
 * @param items    one per job, in request order
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BatchResult(int created, int existing, int failed, List<Item> items) {

    /**
     * The outcome of one job.
     *
     * @param index  its position in the request, from 0
     * @param status what scheduling it alone would have answered: 201, 200, 409 or 422
     * @param id     its id, when known
     * @param job    the job as stored (201, 200)
     * @param error  the problem document (409, 422)
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Item(int index, int status, String id, JobInfo job, JsonNode error) {
        public boolean ok() {
            return status == 200 || status == 201;
        }
    }
}
