/**
 * The job model and the SPIs every store module implements: {@link io.delayq.core.JobStore} for scheduling and
 * delivery state, picked by configuration through {@link io.delayq.core.JobStoreFactory}.
 */
package io.delayq.core;
