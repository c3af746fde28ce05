package io.delayq.service.tenants;

import io.delayq.core.JobRules;
import io.delayq.core.tenant.ApiToken;
import io.delayq.core.tenant.TokenKey;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.auth.DelayqPrincipal;
import io.delayq.service.auth.Role;
import io.delayq.service.auth.TokenFactory;
import io.delayq.service.errors.InvalidFieldsException;
import io.delayq.service.errors.InvalidPathException;
import io.delayq.service.http.Times;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * {@code /v1/admin/tokens}: API tokens made at run time, shown once and stored hashed. Operators manage every token; a
 * tenant's admin manages its own tenant's, granting no role it does not hold itself. Tokens of the configuration are
 * listed too, read-only. Creating and revoking are audited.
 */
@Path("/v1/admin/tokens")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed(Role.ADMIN)
public class TokensResource {
    /** 32 random bytes: 256 bits, beyond guessing. */
    private static final int TOKEN_BYTES = 32;
    static final String PREFIX = "dq_";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final TenantDirectory directory;
    private final TenancyChanges changes;
    private final AuditTrail audit;
    private final LongSupplier clock;

    public TokensResource(TenantDirectory directory, TenancyChanges changes, AuditTrail audit, LongSupplier clock) {
        this.directory = directory;
        this.changes = changes;
        this.audit = audit;
        this.clock = clock;
    }

    /** {@code {tokens: [...]}}. */
    public record TokenList(List<TokenView> tokens) {
    }

    /** 201 with the token's value, shown this once. */
    @POST
    public Response create(TokenRequest request, @Context SecurityContext caller) {
        DelayqPrincipal who = TenantsResource.principal(caller);
        if (request == null || request.name() == null) {
            throw new InvalidFieldsException("name is required, e.g. {\"name\": \"deployer\", \"roles\":"
                    + " [\"producer\"]}", "name");
        }
        try {
            JobRules.checkClientName("name", request.name());
        } catch (IllegalArgumentException e) {
            throw new InvalidFieldsException(e.getMessage(), "name");
        }
        Set<String> roles = request.roles();
        if (roles == null || roles.isEmpty()) {
            throw new InvalidFieldsException("roles is required: one or more of producer, consumer, viewer, admin",
                    "roles");
        }
        for (String role : roles) {
            if (!Role.isKnown(role)) {
                throw new InvalidFieldsException("roles: " + JobRules.quote(String.valueOf(role)) + " is not a role;"
                        + " choose from producer, consumer, viewer, admin", "roles");
            }
        }
        String tenant = request.tenant() != null ? request.tenant() : who.tenant();
        if (tenant != null) {
            try {
                JobRules.checkClientName("tenant", tenant);
            } catch (IllegalArgumentException e) {
                throw new InvalidFieldsException(e.getMessage(), "tenant");
            }
        }
        if (!who.isOperator()) {
            if (!who.tenant().equals(tenant)) {
                throw new ForbiddenException("A tenant's admin makes tokens of its own tenant "
                        + JobRules.quote(who.tenant()) + " only");
            }
            if (!who.roles().containsAll(roles)) {
                throw new ForbiddenException("A token cannot get roles its maker does not hold: " + roles
                        + " asked, " + who.roles() + " held");
            }
        }
        long now = clock.getAsLong();
        Long expiresAtMs = null;
        if (request.expiresAt() != null) {
            try {
                expiresAtMs = Times.parseRfc3339("expiresAt", request.expiresAt());
            } catch (IllegalArgumentException e) {
                throw new InvalidFieldsException(e.getMessage(), "expiresAt");
            }
            if (expiresAtMs <= now) {
                throw new InvalidFieldsException("expiresAt " + request.expiresAt() + " is in the past", "expiresAt");
            }
        }
        String value = newValue();
        String sha256 = HexFormat.of().formatHex(TokenFactory.sha256(value));
        ApiToken token = changes.createToken(new ApiToken(tenant, request.name(), roles, sha256, now, expiresAtMs,
                null, false));
        audit.record(caller, "token.create", "token:" + token.key(), 0, "roles " + roles.stream().sorted().toList()
                + (expiresAtMs == null ? "" : ", expires " + TokenView.time(expiresAtMs)));
        return Response.status(201).entity(new CreatedToken(token.name(), token.tenant(),
                token.roles().stream().sorted().toList(), TokenView.time(now), TokenView.time(expiresAtMs), value))
                .build();
    }

    /**
     * Every token an operator may see ({@code tenant} narrows it to one tenant's; {@code -} to the operators'), or a
     * tenant's admin's own tenant's: never values.
     */
    @GET
    public TokenList list(@QueryParam("tenant") String tenant, @Context SecurityContext caller) {
        DelayqPrincipal who = TenantsResource.principal(caller);
        long now = clock.getAsLong();
        List<TokenView> views = new ArrayList<>();
        for (ConfigToken t : directory.configTokens()) {
            if (visible(who, tenant, t.tenant())) {
                views.add(TokenView.of(t));
            }
        }
        for (ApiToken t : directory.storedTokens()) {
            if (visible(who, tenant, t.tenant())) {
                views.add(TokenView.of(t, directory.lastUsedAtMs(t.key()), now));
            }
        }
        return new TokenList(views);
    }

    /**
     * Revokes a stored token: refused on every instance within 5 s. {@code tenant} names the token's tenant for an
     * operator (left out: an operators' token); a tenant's admin revokes its own tenant's.
     */
    @DELETE
    @Path("{name}")
    public TokenView revoke(@PathParam("name") String name, @QueryParam("tenant") String tenant,
                            @Context SecurityContext caller) {
        DelayqPrincipal who = TenantsResource.principal(caller);
        try {
            JobRules.checkClientName("token name", name);
        } catch (IllegalArgumentException e) {
            throw new InvalidPathException(e.getMessage());
        }
        String owner = who.isOperator() ? tenant : who.tenant();
        if (!who.isOperator() && tenant != null && !tenant.equals(who.tenant())) {
            throw new ForbiddenException("A tenant's admin revokes tokens of its own tenant "
                    + JobRules.quote(who.tenant()) + " only");
        }
        ApiToken revoked = changes.revokeToken(new TokenKey(owner, name));
        audit.record(caller, "token.revoke", "token:" + revoked.key(), 0, null);
        return TokenView.of(revoked, directory.lastUsedAtMs(revoked.key()), clock.getAsLong());
    }

    private static boolean visible(DelayqPrincipal who, String asked, String tokenTenant) {
        if (!who.isOperator()) {
            return who.tenant().equals(tokenTenant);
        }
        if (asked == null) {
            return true;
        }
        return "-".equals(asked) ? tokenTenant == null : asked.equals(tokenTenant);
    }

    static String newValue() {
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
