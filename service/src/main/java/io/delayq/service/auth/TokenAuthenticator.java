package io.delayq.service.auth;

import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;

/**
 * Finds the token a request presents: one of the configuration, else one made through the API ({@link StoredTokens}). Tokens are compared as SHA-256 digests with
 * {@link MessageDigest#isEqual}, against every configured token, so the time taken reveals neither a token's prefix
 * nor which token matched.
 */
public final class TokenAuthenticator {
    private final List<Entry> entries;
    private final StoredTokens stored;

    private record Entry(byte[] sha256, DelayqPrincipal principal) {
    }

    public TokenAuthenticator(List<TokenFactory> tokens) {
        this(tokens, StoredTokens.NONE);
    }

    public TokenAuthenticator(List<TokenFactory> tokens, StoredTokens stored) {
        this.stored = stored;
        this.entries = tokens.stream()
                .map(t -> new Entry(t.sha256(), new DelayqPrincipal(t.getName(), t.getRoles(), t.getTenant())))
                .toList();
    }

    public Optional<DelayqPrincipal> authenticate(String presentedToken) {
        byte[] presented = TokenFactory.sha256(presentedToken);
        DelayqPrincipal found = null;
        for (Entry entry : entries) {
            if (MessageDigest.isEqual(entry.sha256(), presented) && found == null) {
                found = entry.principal();
            }
        }
        return found != null ? Optional.of(found) : stored.find(presented);
    }
}
