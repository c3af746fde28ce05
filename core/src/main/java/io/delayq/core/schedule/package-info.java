/**
 * Recurring schedules in the store: a schedule's definition (kept as the service wrote it), its cursor (the last fire
 * time handled, the compare-and-set that makes each fire happen once however many instances run), the time its next
 * fire is due (an index, so that the scheduler reads only due schedules) and its last {@value
 * io.delayq.core.schedule.ScheduleStore#MAX_FIRES} fires. A fire and the job it enqueues are one atomic store
 * operation; the job's id is in the namespace {@link io.delayq.core.schedule.FireIds} reserves, which producers cannot
 * use.
 */
package io.delayq.core.schedule;
