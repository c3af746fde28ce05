package io.delayq.service.admin;

/** @param purged how many dead letters were removed */
public record PurgeResponse(long purged) {
}
