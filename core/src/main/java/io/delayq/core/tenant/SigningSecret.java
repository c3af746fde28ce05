package io.delayq.core.tenant;

import io.delayq.core.JobRules;

import java.nio.charset.StandardCharsets;

/**
 * One of a tenant's callback signing secrets. While a tenant has two (a rotation), every callback and dead notice
 * carries a signature by each, so receivers can switch secrets at their own pace. The secret is write-only: the API
 * shows the id, never the value.
 *
 * @param id     names the secret in the API (e.g. {@code 2026-11}); unique within the tenant
 * @param secret the HMAC key, 16 to 256 bytes of UTF-8
 */
public record SigningSecret(String id, String secret) {
    public static final int MIN_BYTES = 16;
    public static final int MAX_BYTES = 256;

    public SigningSecret {
        JobRules.checkClientName("signing secret id", id);
        int bytes = secret == null ? 0 : secret.getBytes(StandardCharsets.UTF_8).length;
        if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
            throw new IllegalArgumentException("signing secret " + JobRules.quote(id) + " must be " + MIN_BYTES + " to "
                    + MAX_BYTES + " bytes long; it was " + bytes);
        }
    }

    /** Never the value: secrets do not reach logs through {@code toString}. */
    @Override
    public String toString() {
        return "SigningSecret[" + id + "]";
    }
}
