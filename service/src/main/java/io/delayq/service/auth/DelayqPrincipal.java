package io.delayq.service.auth;

import java.security.Principal;
import java.util.Set;

/** The holder of an accepted token: its configured name and roles. */
public record DelayqPrincipal(String name, Set<String> roles) implements Principal {
    public DelayqPrincipal {
        roles = Set.copyOf(roles);
    }

    @Override
    public String getName() {
        return name;
    }
}
