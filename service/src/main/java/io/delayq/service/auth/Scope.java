package io.delayq.service.auth;

import io.delayq.core.JobRules;
import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import io.delayq.core.archive.TopicScope;
import io.delayq.core.tenant.Tenant;
import io.delayq.service.delivery.TenantLookup;
import jakarta.ws.rs.core.SecurityContext;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The topics one request may see and act on: the one place where a tenant's boundary is decided, used by every
 * resource (and, for every path with a {@code {topic}}, by {@link BearerAuthFeature} before the resource runs).
 *
 * <p>An operator's token (no tenant) sees every topic. A tenant's token sees the topics its tenant owns now (asked of
 * the {@link TenantLookup} at each call, so a changed pattern applies at once) and nothing else: another tenant's
 * topic and an operators' topic are answered exactly as a topic that does not exist ({@link #notFoundUnlessVisible}),
 * lists are filtered ({@link #visible}), and the archive is read through {@link #archiveScope()}, so that a filter
 * left empty means "my topics". A tenant that no longer exists (deleted while its tokens live on) sees nothing.
 *
 * <p>View as tenant: an operator's request carrying {@value #VIEW_HEADER} gets the scope of that tenant (its topics
 * only, exactly as the tenant's own token sees them; {@link TopicAccess#scopeOf(DelayqPrincipal, String)}), so that the
 * dashboard can show one tenant's world. It only narrows what the request sees: the roles stay the token's, and
 * whatever is decided on the token rather than on topics (managing tenants and tokens) stays the operator's.
 */
public final class Scope {
    /** The request header an operator's request names a tenant in, to see that tenant's topics only. */
    public static final String VIEW_HEADER = "Delayq-Tenant-View";

    private static final Scope OPERATOR = new Scope(null, TenantLookup.NONE, name -> null);

    private final String tenant;
    private final TenantLookup owners;
    private final Function<String, Tenant> tenantNamed;
    /** An operator's request viewing {@link #tenant}'s topics ({@value #VIEW_HEADER}), not a tenant's token. */
    private final boolean view;

    Scope(String tenant, TenantLookup owners, Function<String, Tenant> tenantNamed) {
        this(tenant, owners, tenantNamed, false);
    }

    Scope(String tenant, TenantLookup owners, Function<String, Tenant> tenantNamed, boolean view) {
        this.tenant = tenant;
        this.owners = owners;
        this.tenantNamed = tenantNamed;
        this.view = view;
    }

    /** Every topic: an operator's scope. */
    public static Scope operator() {
        return OPERATOR;
    }

    /**
     * The scope of the request's token. A request that passed no token check (a resource without
     * {@code @RolesAllowed}) sees nothing: every resource that reads topics is behind a role.
     */
    public static Scope of(SecurityContext caller) {
        if (caller != null && caller.getUserPrincipal() instanceof DelayqPrincipal p && p.scope() != null) {
            return p.scope();
        }
        return new Scope("(unauthenticated)", TenantLookup.NONE, name -> null);
    }

    /**
     * The tenant whose topics the request sees: the token's tenant, or the tenant an operator views
     * ({@value #VIEW_HEADER}); {@code null} for an operator seeing every topic.
     */
    public String tenant() {
        return tenant;
    }

    /** Whether the request sees every topic (an operator's, not viewing a tenant). */
    public boolean isOperator() {
        return tenant == null;
    }

    /** Whether this is an operator's request narrowed to {@link #tenant()}'s topics by {@value #VIEW_HEADER}. */
    public boolean isView() {
        return view;
    }

    /** Whether the token may see and act on {@code topic}. */
    public boolean canSee(String topic) {
        if (tenant == null) {
            return true;
        }
        Tenant owner = topic == null ? null : owners.tenantOf(topic);
        return owner != null && tenant.equals(owner.name());
    }

    /**
     * The topic, when the token may see it; otherwise 404 as for a topic that does not exist — the same answer
     * whether another tenant owns it, the operators do, or nobody ever used it, so that the answer reveals nothing.
     */
    public String notFoundUnlessVisible(String topic) {
        if (!canSee(topic)) {
            throw notFound(topic);
        }
        return topic;
    }

    /** The 404 of a topic outside the scope. */
    public static StoreException notFound(String topic) {
        return new StoreException(StoreStatus.NOT_FOUND, "topic " + JobRules.quote(topic) + " does not exist");
    }

    /** The topics among {@code topics} the token may see, in their order. */
    public List<String> visible(Collection<String> topics) {
        return tenant == null ? List.copyOf(topics) : topics.stream().filter(this::canSee).toList();
    }

    /**
     * The archive's scope of the token: {@link TopicScope#all()} for an operator, the tenant's patterns for a tenant
     * (an empty scope of the tenant when it no longer exists).
     */
    public TopicScope archiveScope() {
        if (tenant == null) {
            return TopicScope.all();
        }
        Tenant t = tenantNamed.apply(tenant);
        return t == null ? new TopicScope(false, Set.of(), Set.of(), tenant) : TopicScope.of(t);
    }

    /**
     * Whose an action on {@code topic} is for the audit log ({@link io.delayq.core.archive.AuditEntry#tenant()}): the
     * token's tenant; for an operator, the topic's owner ({@code null} for an operators' topic or no single topic).
     * An operator viewing a tenant is still an operator here: the action is the tenant's when it is on one of the
     * tenant's topics (every topic the view can reach), and the operators' only otherwise — an operator's change of
     * another tenant or of tokens, made while viewing, must not land in the viewed tenant's audit log.
     */
    public String auditTenant(String topic) {
        if (tenant != null && !view) {
            return tenant;
        }
        Tenant owner = topic == null ? null : owners.tenantOf(topic);
        return owner == null ? null : owner.name();
    }

    @Override
    public String toString() {
        return tenant == null ? "Scope[operator]" : view ? "Scope[operator viewing " + tenant + "]"
                : "Scope[" + tenant + "]";
    }
}
