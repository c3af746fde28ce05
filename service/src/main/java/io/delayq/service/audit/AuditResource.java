package io.delayq.service.audit;

import com.codahale.metrics.annotation.Timed;
import io.delayq.core.JobRules;
import io.delayq.core.archive.AuditEntry;
import io.delayq.core.archive.JobArchive;
import io.delayq.service.auth.Role;
import io.delayq.service.auth.Scope;
import io.delayq.service.http.RangeParams;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;

import java.util.List;

/**
 * The audit log: what operators did, newest first. Roles {@code admin} and {@code viewer}. A tenant's token reads its
 * tenant's entries only (its own actions, and operators' actions on its topics), by the log's index on the tenant.
 */
@Path("/v1/admin/audit")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Role.ADMIN, Role.VIEWER})
public class AuditResource {
    static final int MAX_LIMIT = 500;
    private static final int MAX_ID_LENGTH = 100;

    private final JobArchive archive;

    public AuditResource(JobArchive archive) {
        this.archive = archive;
    }

    /**
     * <ul>
     *   <li>200 OK: a page, with {@code nextBefore} when there may be more</li>
     *   <li>422: a limit outside 1 to 500, or a {@code before} that is not an entry id</li>
     * </ul>
     */
    @GET
    @Timed
    public AuditPage list(@Context SecurityContext caller, @QueryParam("limit") Integer limit,
                          @QueryParam("before") String before) {
        int n = RangeParams.inRange("limit", limit, 50, 1, MAX_LIMIT);
        String b = before == null || before.isBlank() ? null : before;
        if (b != null && (b.length() > MAX_ID_LENGTH || !b.matches("[A-Za-z0-9-]+"))) {
            throw new IllegalArgumentException("before " + JobRules.quote(b)
                    + " is not an audit entry id; use the nextBefore of"
                    + " the previous page");
        }
        List<AuditEntry> entries = archive.operatorLog().auditLog(n, b, Scope.of(caller).tenant());
        return new AuditPage(entries.stream().map(AuditEntryView::of).toList(),
                entries.size() == n ? entries.get(entries.size() - 1).id() : null);
    }
}
