-- V18: listing a topic's finished jobs in finish order (JobStore#listJobs, list_jobs.sql). V1's
-- delayq_jobs_finished serves the reaper over every topic; a listing of one topic needs the topic first, and the id
-- after the finish time so that a page starts right after its cursor even among jobs finished in the same
-- millisecond. Partial like V1's: a pending job is not in it, so the hot path (enqueue, reserve) does not write it;
-- a job's final transition (ack, nack to dead, cancel) writes one more index entry.
CREATE INDEX delayq_jobs_topic_finished ON delayq_jobs (topic, finished_at, id COLLATE "C")
    WHERE finished_at IS NOT NULL;
