package io.delayq.service.auth;

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
     * The token's name and roles (sorted), and its tenant ({@code null}: an operator's token, seeing every topic).
     */
    public record Me(String name, List<String> roles, String tenant) {
    }

    @GET
    public Me me(@Context SecurityContext caller) {
        DelayqPrincipal p = (DelayqPrincipal) caller.getUserPrincipal();
        return new Me(p.name(), p.roles().stream().sorted().toList(), p.tenant());
    }
}
