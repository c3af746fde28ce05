package io.delayq.service.auth;

import io.delayq.core.JobRules;
import jakarta.annotation.Priority;
import jakarta.annotation.security.DenyAll;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.SecurityContext;

import java.lang.reflect.AnnotatedElement;
import java.security.Principal;
import java.util.Optional;
import java.util.Set;

/**
 * Enforces {@code @RolesAllowed} with bearer tokens. A resource method (or its class) annotated {@code @RolesAllowed}
 * answers 401 with {@code WWW-Authenticate: Bearer} when the token is missing or unknown, and 403 when the token
 * lacks every listed role. {@code @PermitAll} and unannotated methods are open (the OpenAPI document);
 * {@code @DenyAll} refuses everyone.
 *
 * <p>Other packages' resources get the same protection just by carrying {@code @RolesAllowed}.
 *
 * <p>Tenants. Every request of a token carries its {@link Scope} (read by resources with {@link Scope#of}). A path
 * with a {@code {topic}} (jobs, leases, events, settings, history, dead letters: every endpoint of one topic, present
 * or future) is checked here, before the resource runs: a topic outside a tenant's token's scope answers 404 as a
 * topic that does not exist, before the role check, so that neither answer depends on the topic's owner. A topic name
 * that is not valid is left to the resource (422, as for anyone).
 *
 * <p>An operator's request may narrow its scope to one tenant's with {@value Scope#VIEW_HEADER} (see
 * {@link TopicAccess#scopeOf(DelayqPrincipal, String)}); a header the token may not send answers 400, after the token
 * is known and before anything else is decided.
 */
public final class BearerAuthFeature implements DynamicFeature {
    private static final String PREFIX = "Bearer ";
    /** The path parameter that names a topic, in every path of one topic. */
    static final String TOPIC_PARAM = "topic";

    private final TokenAuthenticator authenticator;
    private final TopicAccess access;

    public BearerAuthFeature(TokenAuthenticator authenticator, TopicAccess access) {
        this.authenticator = authenticator;
        this.access = access;
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        var method = resourceInfo.getResourceMethod();
        if (method.isAnnotationPresent(DenyAll.class)) {
            context.register(new RoleFilter(Set.of()));
            return;
        }
        if (method.isAnnotationPresent(PermitAll.class)) {
            return;
        }
        Optional<RolesAllowed> roles = rolesAllowed(method).or(() -> rolesAllowed(resourceInfo.getResourceClass()));
        roles.ifPresent(r -> context.register(new RoleFilter(Set.of(r.value()))));
    }

    private static Optional<RolesAllowed> rolesAllowed(AnnotatedElement element) {
        return Optional.ofNullable(element.getAnnotation(RolesAllowed.class));
    }

    @Priority(Priorities.AUTHENTICATION)
    private final class RoleFilter implements ContainerRequestFilter {
        private final Set<String> allowed;

        private RoleFilter(Set<String> allowed) {
            this.allowed = allowed;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            DelayqPrincipal principal = bearerToken(request.getHeaderString(HttpHeaders.AUTHORIZATION))
                    .flatMap(authenticator::authenticate)
                    .orElseThrow(() -> new NotAuthorizedException(
                            "Send a valid API token as 'Authorization: Bearer <token>'", "Bearer realm=\"delayq\""));
            Scope scope = access.scopeOf(principal, request.getHeaderString(Scope.VIEW_HEADER));
            String topic = request.getUriInfo().getPathParameters().getFirst(TOPIC_PARAM);
            if (topic != null && isValidTopic(topic)) {
                scope.notFoundUnlessVisible(topic);
            }
            if (principal.roles().stream().noneMatch(allowed::contains)) {
                throw new ForbiddenException("The token of '" + principal.name() + "' has roles " + principal.roles()
                        + "; this operation needs one of " + allowed);
            }
            request.setSecurityContext(new TokenSecurityContext(principal.withScope(scope),
                    request.getSecurityContext().isSecure()));
        }
    }

    private static Optional<String> bearerToken(String header) {
        if (header == null || header.length() <= PREFIX.length()
                || !header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return Optional.empty();
        }
        return Optional.of(header.substring(PREFIX.length()).trim());
    }

    private static boolean isValidTopic(String topic) {
        try {
            JobRules.checkClientTopic(topic);
            return true;
        } catch (IllegalArgumentException invalid) {
            return false;
        }
    }

    private record TokenSecurityContext(DelayqPrincipal principal, boolean secure) implements SecurityContext {
        @Override
        public Principal getUserPrincipal() {
            return principal;
        }

        @Override
        public boolean isUserInRole(String role) {
            return principal.roles().contains(role);
        }

        @Override
        public boolean isSecure() {
            return secure;
        }

        @Override
        public String getAuthenticationScheme() {
            return "Bearer";
        }
    }
}
