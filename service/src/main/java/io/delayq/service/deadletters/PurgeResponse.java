package io.delayq.service.deadletters;

/** @param purged how many dead letters were removed */
public record PurgeResponse(long purged) {
}
