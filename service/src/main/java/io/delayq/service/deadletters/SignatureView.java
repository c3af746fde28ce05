package io.delayq.service.deadletters;

import io.delayq.core.archive.FailureSignature;

/** A failure signature on the wire: {@code id} is the value of the {@code group} filter. */
public record SignatureView(String id, String kind, String message, String host) {
    static SignatureView of(FailureSignature s) {
        return new SignatureView(s.id(), s.kind(), s.message(), s.host());
    }
}
