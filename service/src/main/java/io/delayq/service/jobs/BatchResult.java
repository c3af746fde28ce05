package io.delayq.service.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.delayq.service.api.JobView;
import io.delayq.service.errors.Problem;

import java.util.List;

/**
 * The answer to a batch: one item per job, in request order, and how many of each outcome.
 *
 * @param created  jobs scheduled by this request
 * @param existing jobs that already existed with the same content (idempotent repeats)
 * @param failed   jobs refused (invalid, or the id taken by different content)
 * @param items    per job, in request order
 */
public record BatchResult(int created, int existing, int failed, List<Item> items) {

    /**
     * The outcome of one job of a batch.
     *
     * @param index  position in the request, from 0
     * @param status what the single-job endpoint would have answered: 201, 200, 409 or 422
     * @param id     the job's id (generated ones included), when known
     * @param job    the job as stored, for 201 and 200
     * @param error  the problem, for 409 and 422
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Item(int index, int status, String id, JobView job, Problem error) {
    }
}
