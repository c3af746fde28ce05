package io.delayq.service.auth;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

import java.util.List;

/** Who the token belongs to: the dashboard signs in with it and hides what the roles do not allow. */
@Path("/v1/me")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.PRODUCER, Role.CONSUMER, Role.ADMIN, Role.VIEWER})
public class MeResource {

    /**
     * The token's name and roles (sorted), and its tenant (absent for an operator's token, which sees every topic);
     * {@code view}: the tenant an operator's request views ({@value Scope#VIEW_HEADER}), so that the dashboard can
     * show whose world it shows (absent otherwise).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Me(String name, List<String> roles, String tenant, String view) {
    }

    @GET
    public Me me(@Context SecurityContext caller) {
        DelayqPrincipal p = (DelayqPrincipal) caller.getUserPrincipal();
        Scope scope = Scope.of(caller);
        return new Me(p.name(), p.roles().stream().sorted().toList(), p.tenant(),
                scope.isView() ? scope.tenant() : null);
    }
}
