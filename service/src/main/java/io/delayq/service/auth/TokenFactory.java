package io.delayq.service.auth;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;

/**
 * One API token ({@code auth.tokens[]} in the configuration).
 *
 * <table>
 *   <caption>auth.tokens[]</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code name}</td><td>(required)</td><td>Who holds the token; shown in logs as the principal.</td></tr>
 *   <tr><td>{@code token}</td><td>(required)</td>
 *       <td>{@code sha256:<64 hex digits>} (the SHA-256 of the token, recommended: the configuration then holds
 *       no secret; make one with {@code printf %s "$TOKEN" | sha256sum}), or the token itself.</td></tr>
 *   <tr><td>{@code roles}</td><td>(required)</td><td>Any of {@code producer}, {@code consumer}, {@code viewer},
 *       {@code admin}.</td></tr>
 *   <tr><td>{@code tenant}</td><td>none</td><td>The tenant (of {@code tenants:}) the token belongs to: it then sees and
 *       acts on that tenant's topics only, its roles held within the tenant. Without it, an operator's token.</td></tr>
 * </table>
 */
public class TokenFactory {
    private static final String SHA256_PREFIX = "sha256:";

    @NotEmpty
    private String name;

    @NotEmpty
    private String token;

    @NotNull
    @NotEmpty
    private Set<String> roles = Set.of();

    private String tenant;

    @JsonProperty
    public String getName() {
        return name;
    }

    @JsonProperty
    public void setName(String name) {
        this.name = name;
    }

    @JsonProperty
    public String getToken() {
        return token;
    }

    @JsonProperty
    public void setToken(String token) {
        this.token = token;
    }

    @JsonProperty
    public Set<String> getRoles() {
        return roles;
    }

    @JsonProperty
    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }

    @JsonProperty
    public String getTenant() {
        return tenant;
    }

    @JsonProperty
    public void setTenant(String tenant) {
        this.tenant = tenant;
    }

    @JsonIgnore
    @ValidationMethod(message = "roles must be among producer, consumer, admin and viewer")
    public boolean isRolesKnown() {
        return roles == null || roles.stream().allMatch(Role::isKnown);
    }

    @JsonIgnore
    @ValidationMethod(message = "a token starting with 'sha256:' must be followed by 64 hex digits")
    public boolean isHashWellFormed() {
        return token == null || !token.startsWith(SHA256_PREFIX)
                || token.substring(SHA256_PREFIX.length()).matches("[0-9a-fA-F]{64}");
    }

    /** The SHA-256 of the token, whichever way it was configured. */
    public byte[] sha256() {
        if (token.startsWith(SHA256_PREFIX)) {
            return HexFormat.of().parseHex(token.substring(SHA256_PREFIX.length()).toLowerCase(Locale.ROOT));
        }
        return sha256(token);
    }

    /** One digest per thread: every request hashes the token it presents, and a lookup per call costs a provider search. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JRE", e);
        }
    });

    public static byte[] sha256(String text) {
        return SHA256.get().digest(text.getBytes(StandardCharsets.UTF_8)); // digest() resets it for the next use
    }
}
