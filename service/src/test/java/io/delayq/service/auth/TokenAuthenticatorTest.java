package io.delayq.service.auth;

import org.junit.jupiter.api.Test;

import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class TokenAuthenticatorTest {

    private static TokenFactory token(String name, String token, String... roles) {
        TokenFactory t = new TokenFactory();
        t.setName(name);
        t.setToken(token);
        t.setRoles(Set.of(roles));
        return t;
    }

    @Test
    void acceptsPlainAndHashedTokensAndNothingElse() {
        String hash = "sha256:" + HexFormat.of().formatHex(TokenFactory.sha256("s3cret"));
        var authenticator = new TokenAuthenticator(List.of(
                token("plain", "p-token", Role.PRODUCER),
                token("hashed", hash.toUpperCase().replace("SHA256:", "sha256:"), Role.ADMIN)));

        assertThat(authenticator.authenticate("p-token")).get().extracting(DelayqPrincipal::name).isEqualTo("plain");
        assertThat(authenticator.authenticate("s3cret")).get().satisfies(p -> {
            assertThat(p.name()).isEqualTo("hashed");
            assertThat(p.roles()).containsExactly(Role.ADMIN);
        });
        assertThat(authenticator.authenticate(hash)).as("the hash itself is not a token").isEmpty();
        assertThat(authenticator.authenticate("p-toke")).isEmpty();
        assertThat(authenticator.authenticate("")).isEmpty();
    }
}
