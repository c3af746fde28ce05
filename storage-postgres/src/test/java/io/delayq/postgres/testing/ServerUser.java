package io.delayq.postgres.testing;

import com.sun.security.auth.module.UnixSystem;
import java.io.File;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.ArrayList;
import java.util.List;

/**
 * The operating-system user that runs initdb and postgres.
 *
 * <p>PostgreSQL refuses to run as root (initdb: "cannot be run as root"; postgres: "root execution of the
 * PostgreSQL server is not permitted"), and CI runs the tests as root. So when this JVM is root, the
 * binaries run as the unprivileged user {@code nobody} (group {@code nogroup}, or {@code nobody} where that
 * is the group's name), started through util-linux's {@code setpriv}, which sets the real and effective
 * uid/gid, drops the supplementary groups, and then execs the program: the started process keeps its pid,
 * so the JVM's {@link Process} is the postmaster itself and its signals reach it directly. Everything that
 * user has to write (the data directory) is chowned to it; everything it has to read (the unpacked binaries,
 * every directory on the way to the data directory) must be readable and searchable by others.
 *
 * <p>When the JVM is not root, the binaries run directly as the JVM's own user and none of this applies.
 */
final class ServerUser {
    static final String UNPRIVILEGED_USER = "nobody";

    private final UserPrincipal user;
    private final GroupPrincipal group;
    private final String groupName;

    private ServerUser(UserPrincipal user, GroupPrincipal group, String groupName) {
        this.user = user;
        this.group = group;
        this.groupName = groupName;
    }

    /** Root is uid 0; PostgreSQL checks the effective uid, which for a JVM is the same as the real one. */
    static boolean jvmIsRoot() {
        return new UnixSystem().getUid() == 0;
    }

    /** The server user for this JVM: itself unless it is root, else {@code nobody} through setpriv. */
    static ServerUser forThisJvm() {
        if (!jvmIsRoot()) {
            return new ServerUser(null, null, null);
        }
        if (!onPath("setpriv")) {
            throw new IllegalStateException("this JVM runs as root, which PostgreSQL refuses, and setpriv (util-linux) "
                    + "is not on the PATH to run it as user " + UNPRIVILEGED_USER + " instead; install util-linux or "
                    + "run the tests as a non-root user");
        }
        UserPrincipalLookupService lookup = FileSystems.getDefault().getUserPrincipalLookupService();
        UserPrincipal user;
        try {
            user = lookup.lookupPrincipalByName(UNPRIVILEGED_USER);
        } catch (IOException e) {
            throw new IllegalStateException("this JVM runs as root, which PostgreSQL refuses, and there is no user "
                    + UNPRIVILEGED_USER + " to run it as instead", e);
        }
        for (String name : List.of("nogroup", "nobody")) {
            try {
                return new ServerUser(user, lookup.lookupPrincipalByGroupName(name), name);
            } catch (UserPrincipalNotFoundException e) {
                // try the next name
            } catch (IOException e) {
                throw new IllegalStateException("cannot look up group " + name, e);
            }
        }
        throw new IllegalStateException("this JVM runs as root and neither group nogroup nor nobody exists for user "
                + UNPRIVILEGED_USER);
    }

    boolean dropsPrivileges() {
        return user != null;
    }

    /** The command line that runs {@code command} as this user. */
    List<String> command(List<String> command) {
        if (!dropsPrivileges()) {
            return command;
        }
        List<String> full = new ArrayList<>(List.of("setpriv", "--reuid=" + user.getName(), "--regid=" + groupName,
                "--clear-groups", "--"));
        full.addAll(command);
        return full;
    }

    /** Makes {@code path} this user's (as root: chown nobody:nogroup), so that the server can write there. */
    void own(Path path) throws IOException {
        if (dropsPrivileges()) {
            PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
            view.setOwner(user);
            view.setGroup(group);
        }
    }

    /**
     * Fails unless this user can reach {@code dir}: as root, every directory from / down to it must be
     * searchable by others (nobody is neither its owner nor in its group), since the server runs as nobody.
     * The directory itself is made searchable if needed, as callers often hand a fresh rwx------ temp directory.
     */
    void checkReachable(Path dir) throws IOException {
        if (!dropsPrivileges()) {
            return;
        }
        Path abs = dir.toAbsolutePath();
        var own = Files.getPosixFilePermissions(abs);
        if (!own.contains(PosixFilePermission.OTHERS_EXECUTE)) {
            own.addAll(PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(abs, own);
        }
        for (Path p = abs.getParent(); p != null; p = p.getParent()) {
            var perms = Files.getPosixFilePermissions(p);
            if (!perms.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                throw new IllegalStateException("PostgreSQL runs as user " + UNPRIVILEGED_USER + " (this JVM is root), "
                        + "which cannot reach " + abs + ": " + p + " is " + PosixFilePermissions.toString(perms)
                        + "; use a base directory under a world-searchable path such as the system temp directory");
            }
        }
    }

    String describe() {
        return dropsPrivileges() ? UNPRIVILEGED_USER + ":" + groupName + " (via setpriv, as this JVM is root)"
                : System.getProperty("user.name") + " (this JVM's user)";
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "/usr/bin:/bin" : path).split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
