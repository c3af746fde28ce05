package io.delayq.service.auth;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

import java.util.ArrayList;
import java.util.List;

/**
 * Who may call the API ({@code auth:} in the configuration). Every request to {@code /v1/**} carries
 * {@code Authorization: Bearer <token>}; the token's roles decide what it may do.
 *
 * <table>
 *   <caption>auth</caption>
 *   <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 *   <tr><td>{@code tokens}</td><td>none</td>
 *       <td>The accepted tokens, see {@link TokenFactory}. With none, every {@code /v1} request is refused with
 *       401.</td></tr>
 * </table>
 */
public class AuthFactory {
    @Valid
    @NotNull
    private List<TokenFactory> tokens = new ArrayList<>();

    @JsonProperty
    public List<TokenFactory> getTokens() {
        return tokens;
    }

    @JsonProperty
    public void setTokens(List<TokenFactory> tokens) {
        this.tokens = tokens;
    }

    /** The filters and features that enforce these tokens on resources annotated {@code @RolesAllowed}. */
    public BearerAuthFeature build() {
        return build(StoredTokens.NONE, TopicAccess.NONE);
    }

    /**
     * As {@link #build()}, also accepting the tokens made through the API ({@code stored}), and tenants' tokens scoped
     * to their tenant's topics by {@code access}.
     */
    public BearerAuthFeature build(StoredTokens stored, TopicAccess access) {
        return new BearerAuthFeature(new TokenAuthenticator(tokens, stored), access);
    }
}
