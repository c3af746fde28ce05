package io.delayq.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link in the repository's Markdown — the root README, CHANGELOG, CONTRIBUTING, SECURITY, the guides
 * under {@code docs/} and each module's README — points at a file or folder that exists inside the repository, and a
 * {@code #anchor} into a Markdown file names one of its headings as GitHub makes their anchors. Lives in core because
 * core has no heavy dependencies; it reads files only.
 */
class DocumentationLinksTest {

    /** Folders that hold no documentation of ours: build output, installed packages, local data (see .gitignore). */
    private static final Set<String> SKIPPED_FOLDERS = Set.of("target", "node_modules", "bench-results", "data");

    /**
     * The {@code ](target)} that ends an inline link or image, with an optional title; the target may be in
     * {@code <>}. Only the end is matched, so a link whose text wraps from the line before is read too.
     */
    private static final Pattern INLINE_LINK =
            Pattern.compile("\\]\\(\\s*(<[^>]*>|[^)\\s]+)(?:\\s+(?:\"[^\"]*\"|'[^']*'))?\\s*\\)");
    /** {@code [label]: target} reference definitions. */
    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*(<[^>]*>|\\S+)");
    private static final Pattern ATX_HEADING = Pattern.compile("^ {0,3}(#{1,6})(?:[ \\t]+(.*?))?[ \\t]*$");
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

    @Test
    void everyRelativeLinkResolves() throws IOException {
        Path root = repositoryRoot();
        List<Path> files = markdownFiles(root);
        assertThat(files).as("Markdown files found under %s", root)
                .contains(root.resolve("README.md"), root.resolve("core/README.md"));

        LinkChecker checker = new LinkChecker(root);
        for (Path file : files) {
            checker.check(file);
        }
        assertThat(checker.checkedLinks).as("relative links read (a parser that finds none checks nothing)")
                .isGreaterThan(100);
        assertThat(checker.broken).as("broken relative links (file:line: link — why)").isEmpty();
    }

    @Test
    void theCheckerFindsBrokenFilesAnchorsAndEscapes(@TempDir Path temp) throws IOException {
        Path root = Files.createDirectories(temp.resolve("repo"));
        Files.writeString(temp.resolve("outside.md"), "# Outside\n");
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/guide.md"), """
                # The guide

                ## `store` — where jobs live

                ## Asynchronous acknowledgement (202)
                """);
        Files.writeString(root.resolve("README.md"), """
                # Title

                [good file](docs/guide.md) [good anchor](docs/guide.md#store--where-jobs-live)
                [good local](#title) [good folder](docs/) ![image](docs/guide.md "a title")
                [absolute](https://example.com/nowhere) [mail](mailto:someone@example.com)
                `[in code](missing-in-code.md)`

                ```
                [in a fence](missing-in-fence.md)
                ```

                [missing file](docs/missing.md)
                [missing anchor](docs/guide.md#no-such-heading)
                [missing local anchor](#nowhere)
                [outside the repository](../outside.md)
                [ref]: docs/also-missing.md
                """);

        LinkChecker checker = new LinkChecker(root);
        checker.check(root.resolve("README.md"));

        assertThat(checker.broken).hasSize(5);
        assertThat(String.join("\n", checker.broken))
                .contains("README.md:12: docs/missing.md")
                .contains("README.md:13: docs/guide.md#no-such-heading")
                .contains("README.md:14: #nowhere")
                .contains("README.md:15: ../outside.md")
                .contains("README.md:16: docs/also-missing.md")
                .doesNotContain("missing-in-code")
                .doesNotContain("missing-in-fence");
    }

    @Test
    void anchorsFollowGitHubsSlugs() {
        assertThat(slug("`store` — where jobs live")).isEqualTo("store--where-jobs-live");
        assertThat(slug("`deadNotices` — notices of dead jobs")).isEqualTo("deadnotices--notices-of-dead-jobs");
        assertThat(slug("Asynchronous acknowledgement (202)")).isEqualTo("asynchronous-acknowledgement-202");
        assertThat(slug("Scripts (`src/main/resources/io/delayq/redis/lua/`)"))
                .isEqualTo("scripts-srcmainresourcesiodelayqredislua");
        assertThat(slug("Operator log (V6: `delayq_operations`, `delayq_audit`)"))
                .isEqualTo("operator-log-v6-delayq_operations-delayq_audit");
        assertThat(slug("The dashboard's cost (W4 with the dashboard open)"))
                .isEqualTo("the-dashboards-cost-w4-with-the-dashboard-open");
        assertThat(slug("See [the guide](docs/guide.md) **now**")).isEqualTo("see-the-guide-now");
        assertThat(slug("PostgreSQL part: the hot path (W1 and W3, 24 Nov)"))
                .isEqualTo("postgresql-part-the-hot-path-w1-and-w3-24-nov");
    }

    /** The folder holding {@code mvnw}, at or above the working directory (a module folder under Maven). */
    static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new AssertionError("no folder at or above " + Path.of("").toAbsolutePath() + " holds mvnw");
    }

    private static List<Path> markdownFiles(Path root) throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                boolean skipped = !dir.equals(root) && (name.startsWith(".") || SKIPPED_FOLDERS.contains(name));
                return skipped ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (file.getFileName().toString().endsWith(".md")) {
                    found.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        found.sort(null);
        return found;
    }

    /**
     * GitHub's anchor for a heading (as github-slugger makes it): the heading's text as rendered (code spans keep their
     * text, links their text, emphasis markers go), lower-cased, every character that is not a letter, a digit, a
     * space, {@code -} or {@code _} dropped, and each space turned into {@code -}.
     */
    static String slug(String heading) {
        String text = heading
                .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                .replace("`", "")
                .replace("*", "");
        StringBuilder out = new StringBuilder();
        text.toLowerCase(java.util.Locale.ROOT).codePoints().forEach(c -> {
            if (c == ' ') {
                out.append('-');
            } else if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }

    /** Checks the links of Markdown files, collecting what does not resolve. */
    static final class LinkChecker {
        private final Path root;
        private final Map<Path, Set<String>> anchors = new HashMap<>();
        final List<String> broken = new ArrayList<>();
        int checkedLinks;

        LinkChecker(Path root) {
            this.root = root.toAbsolutePath().normalize();
        }

        void check(Path file) {
            for (Line line : outsideCodeBlocks(read(file))) {
                String prose = CODE_SPAN.matcher(line.text()).replaceAll("code");
                Matcher inline = INLINE_LINK.matcher(prose);
                while (inline.find()) {
                    checkLink(file, line.number(), inline.group(1));
                }
                Matcher reference = REFERENCE_DEFINITION.matcher(prose);
                if (reference.find()) {
                    checkLink(file, line.number(), reference.group(1));
                }
            }
        }

        private void checkLink(Path file, int line, String rawTarget) {
            String target = rawTarget.startsWith("<") ? rawTarget.substring(1, rawTarget.length() - 1) : rawTarget;
            if (SCHEME.matcher(target).find() || target.startsWith("//")) {
                return; // absolute: another site's business
            }
            checkedLinks++;
            int hash = target.indexOf('#');
            String path = hash < 0 ? target : target.substring(0, hash);
            String anchor = hash < 0 ? null : target.substring(hash + 1);
            int query = path.indexOf('?');
            if (query >= 0) {
                path = path.substring(0, query);
            }
            String where = root.relativize(file.toAbsolutePath().normalize()) + ":" + line + ": " + target + " — ";

            Path resolved;
            if (path.isEmpty()) {
                resolved = file.toAbsolutePath().normalize();
            } else {
                String decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
                resolved = (decoded.startsWith("/") ? root.resolve(decoded.substring(1))
                        : file.toAbsolutePath().getParent().resolve(decoded)).normalize();
                if (!resolved.startsWith(root)) {
                    broken.add(where + "points outside the repository (" + resolved + ")");
                    return;
                }
                if (!Files.exists(resolved)) {
                    broken.add(where + "no such file or folder " + root.relativize(resolved));
                    return;
                }
            }
            if (anchor != null && !anchor.isEmpty() && resolved.getFileName().toString().endsWith(".md")) {
                String wanted = URLDecoder.decode(anchor, StandardCharsets.UTF_8).toLowerCase(java.util.Locale.ROOT);
                if (!anchorsOf(resolved).contains(wanted)) {
                    broken.add(where + "no heading with the anchor #" + wanted + " in " + root.relativize(resolved));
                }
            }
        }

        /** The anchors GitHub gives the headings of a Markdown file, a repeated one numbered {@code -1}, {@code -2} …. */
        private Set<String> anchorsOf(Path file) {
            return anchors.computeIfAbsent(file, f -> {
                Set<String> out = new HashSet<>();
                Map<String, Integer> seen = new HashMap<>();
                for (Line line : outsideCodeBlocks(read(f))) {
                    Matcher h = ATX_HEADING.matcher(line.text());
                    if (h.matches()) {
                        String text = h.group(2) == null ? "" : h.group(2).replaceAll("[ \\t]+#+$", "");
                        String base = slug(text);
                        int n = seen.merge(base, 1, Integer::sum) - 1;
                        out.add(n == 0 ? base : base + "-" + n);
                    }
                }
                return out;
            });
        }

        /** The lines outside fenced code blocks, numbered from 1. */
        private static List<Line> outsideCodeBlocks(List<String> lines) {
            List<Line> out = new ArrayList<>();
            String fence = null;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                Matcher f = FENCE.matcher(line);
                if (fence == null && f.find()) {
                    fence = f.group(1);
                } else if (fence != null) {
                    boolean closes = f.find() && f.group(1).charAt(0) == fence.charAt(0)
                            && f.group(1).length() >= fence.length() && line.strip().equals(f.group(1));
                    if (closes) {
                        fence = null;
                    }
                } else {
                    out.add(new Line(i + 1, line));
                }
            }
            return out;
        }

        private record Line(int number, String text) {
        }

        private static List<String> read(Path file) {
            try {
                return Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
