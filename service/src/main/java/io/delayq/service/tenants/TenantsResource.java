package io.delayq.service.tenants;

import io.delayq.core.JobRules;
import io.delayq.core.tenant.SigningSecret;
import io.delayq.core.tenant.Tenant;
import io.delayq.core.tenant.TopicPattern;
import io.delayq.service.audit.AuditTrail;
import io.delayq.service.auth.DelayqPrincipal;
import io.delayq.service.auth.Role;
import io.delayq.service.errors.InvalidFieldsException;
import io.delayq.service.errors.InvalidPathException;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code /v1/admin/tenants}: operators (admin tokens without a tenant) create, change and delete tenants; a tenant's
 * admin reads its own. Tenants of the configuration are listed too, read-only. Changes are audited.
 */
@Path("/v1/admin/tenants")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed(Role.ADMIN)
public class TenantsResource {
    private final TenantDirectory directory;
    private final TenancyChanges changes;
    private final TenantUse use;
    private final AuditTrail audit;

    public TenantsResource(TenantDirectory directory, TenancyChanges changes, TenantUse use, AuditTrail audit) {
        this.directory = directory;
        this.changes = changes;
        this.use = use;
        this.audit = audit;
    }

    /** {@code {tenants: [...]}}: every tenant for an operator, its own for a tenant's admin. */
    public record TenantList(List<TenantView> tenants) {
    }

    @GET
    public TenantList list(@Context SecurityContext caller) {
        DelayqPrincipal who = principal(caller);
        return new TenantList(directory.tenants().stream()
                .filter(t -> who.isOperator() || t.name().equals(who.tenant()))
                .map(t -> TenantView.of(t, use.of(t))).toList());
    }

    @GET
    @Path("{name}")
    public TenantView get(@PathParam("name") String name, @Context SecurityContext caller) {
        DelayqPrincipal who = principal(caller);
        Tenant tenant = directory.tenant(name).filter(t -> who.isOperator() || t.name().equals(who.tenant()))
                .orElseThrow(() -> new NotFoundException("There is no tenant " + JobRules.quote(name)));
        return TenantView.of(tenant, use.of(tenant));
    }

    /** 201 for a new tenant, 200 for a changed one; 409 when a pattern overlaps another tenant's or it is configured. */
    @PUT
    @Path("{name}")
    public Response put(@PathParam("name") String name, TenantRequest request, @Context SecurityContext caller) {
        operatorsOnly(caller, "change tenants");
        checkName(name);
        List<TopicPattern> topics = topics(request);
        Integer weight = request.weight();
        if (weight != null && (weight < 1 || weight > Tenant.MAX_WEIGHT)) {
            throw new InvalidFieldsException("weight must be 1 to " + Tenant.MAX_WEIGHT + "; it was " + weight,
                    "weight");
        }
        List<TenantRequest.SecretSpec> secrets = request.signingSecrets();
        checkSecrets(secrets);
        Function<Optional<Tenant>, Tenant> change = previous -> {
            List<SigningSecret> kept = secrets == null
                    ? previous.map(Tenant::signingSecrets).orElse(List.of())
                    : resolve(secrets, previous.map(Tenant::signingSecrets).orElse(List.of()));
            return new Tenant(name, topics, request.quotas(), weight == null ? Tenant.DEFAULT_WEIGHT : weight, kept,
                    false);
        };
        TenancyChanges.Put put = changes.putTenant(name, change);
        Tenant tenant = put.tenant();
        audit.record(caller, put.created() ? "tenant.create" : "tenant.change", "tenant:" + name, 0,
                "topics " + tenant.topics() + ", weight " + tenant.weight() + ", quotas " + tenant.quotas()
                        + ", signing secrets " + tenant.signingSecrets().stream().map(SigningSecret::id).toList());
        return Response.status(put.created() ? 201 : 200).entity(TenantView.of(tenant, use.of(tenant))).build();
    }

    /** 204; 409 while it owns pending jobs, or when configured. Its stored tokens are deleted with it. */
    @DELETE
    @Path("{name}")
    public Response delete(@PathParam("name") String name, @Context SecurityContext caller) {
        operatorsOnly(caller, "delete tenants");
        checkName(name);
        int tokens = changes.deleteTenant(name);
        audit.record(caller, "tenant.delete", "tenant:" + name, 0, tokens + " tokens deleted with it");
        return Response.noContent().build();
    }

    private static List<TopicPattern> topics(TenantRequest request) {
        if (request == null || request.topics() == null || request.topics().isEmpty()) {
            throw new InvalidFieldsException("topics is required: 1 to " + Tenant.MAX_PATTERNS + " patterns, e.g."
                    + " {\"topics\": [\"billing.*\"]}", "topics");
        }
        if (request.topics().size() > Tenant.MAX_PATTERNS) {
            throw new InvalidFieldsException("topics has " + request.topics().size() + " patterns; at most "
                    + Tenant.MAX_PATTERNS, "topics");
        }
        List<TopicPattern> patterns = new ArrayList<>();
        for (int i = 0; i < request.topics().size(); i++) {
            try {
                TopicPattern p = new TopicPattern(request.topics().get(i));
                if (patterns.contains(p)) {
                    throw new IllegalArgumentException("pattern " + JobRules.quote(p.text()) + " appears twice");
                }
                patterns.add(p);
            } catch (IllegalArgumentException e) {
                throw new InvalidFieldsException("topics[" + i + "]: " + e.getMessage(), "topics[" + i + "]");
            }
        }
        return patterns;
    }

    private static void checkSecrets(List<TenantRequest.SecretSpec> secrets) {
        if (secrets == null) {
            return;
        }
        if (secrets.size() > Tenant.MAX_SIGNING_SECRETS) {
            throw new InvalidFieldsException("signingSecrets has " + secrets.size() + " secrets; a tenant has at most "
                    + Tenant.MAX_SIGNING_SECRETS + " (two during a rotation)", "signingSecrets");
        }
        Map<String, Long> ids = secrets.stream().filter(s -> s != null && s.id() != null)
                .collect(Collectors.groupingBy(TenantRequest.SecretSpec::id, Collectors.counting()));
        for (int i = 0; i < secrets.size(); i++) {
            TenantRequest.SecretSpec s = secrets.get(i);
            String field = "signingSecrets[" + i + "]";
            if (s == null || s.id() == null) {
                throw new InvalidFieldsException(field + ".id is required", field + ".id");
            }
            if (ids.get(s.id()) > 1) {
                throw new InvalidFieldsException(field + ".id " + JobRules.quote(s.id()) + " appears twice",
                        field + ".id");
            }
            try {
                JobRules.checkClientName("signing secret id", s.id());
                if (s.secret() != null) {
                    new SigningSecret(s.id(), s.secret());
                }
            } catch (IllegalArgumentException e) {
                throw new InvalidFieldsException(field + ": " + e.getMessage(),
                        field + (s.secret() != null && e.getMessage().contains("bytes") ? ".secret" : ".id"));
            }
        }
    }

    /** The secrets to store: those sent with a value, and those sent by id alone with their stored value. */
    private static List<SigningSecret> resolve(List<TenantRequest.SecretSpec> secrets, List<SigningSecret> stored) {
        List<SigningSecret> result = new ArrayList<>();
        for (int i = 0; i < secrets.size(); i++) {
            TenantRequest.SecretSpec s = secrets.get(i);
            if (s.secret() != null) {
                result.add(new SigningSecret(s.id(), s.secret()));
                continue;
            }
            String field = "signingSecrets[" + i + "].secret";
            SigningSecret known = stored.stream().filter(k -> k.id().equals(s.id())).findFirst()
                    .orElseThrow(() -> new InvalidFieldsException(field + " is required: the tenant has no stored"
                            + " secret " + JobRules.quote(s.id()) + " to keep", field));
            result.add(known);
        }
        return result;
    }

    private static void checkName(String name) {
        try {
            JobRules.checkClientName("tenant", name);
        } catch (IllegalArgumentException e) {
            throw new InvalidPathException(e.getMessage());
        }
    }

    static DelayqPrincipal principal(SecurityContext caller) {
        return (DelayqPrincipal) caller.getUserPrincipal();
    }

    static void operatorsOnly(SecurityContext caller, String what) {
        DelayqPrincipal who = principal(caller);
        if (!who.isOperator()) {
            throw new ForbiddenException("Only operators (admin tokens without a tenant) may " + what + "; the token"
                    + " of " + JobRules.quote(who.name()) + " belongs to tenant " + JobRules.quote(who.tenant()));
        }
    }
}
