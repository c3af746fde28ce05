package io.delayq.service.auth;

import java.util.Optional;

/**
 * The tokens made through the API (kept hashed in the store; the tenant directory answers). Asked only when no token
 * of the configuration matched.
 */
@FunctionalInterface
public interface StoredTokens {
    StoredTokens NONE = sha256 -> Optional.empty();

    /**
     * The holder of the active (neither expired nor revoked) token with this SHA-256, compared in constant time, or
     * empty.
     */
    Optional<DelayqPrincipal> find(byte[] sha256);
}
