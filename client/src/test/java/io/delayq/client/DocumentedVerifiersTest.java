package io.delayq.client;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Python and Node verifiers that docs/callbacks.md shows are the files {@link SignatureVerifierTest} runs against
 * real requests ({@code src/test/resources/verify/verify.py} and {@code verify.js}), so that a receiver copying the
 * guide copies tested code. Each file marks the part the guide shows with a {@value #BEGIN} and an {@value #END}
 * comment (the rest is the test's own harness); in the guide, an HTML comment naming the file precedes the fenced
 * block, and the block must be that part, line for line. Edit the file and the guide together.
 */
class DocumentedVerifiersTest {
    static final String GUIDE = "docs/callbacks.md";
    static final List<String> VERIFIERS = List.of(
            "client/src/test/resources/verify/verify.py",
            "client/src/test/resources/verify/verify.js");
    static final String BEGIN = "---- docs/callbacks.md: begin";
    static final String END = "---- docs/callbacks.md: end";
    /** The start of the HTML comment that precedes each checked block in the guide; the file's path follows it. */
    static final String GUIDE_MARKER = "<!-- DocumentedVerifiersTest: this block is ";

    @Test
    void theGuideShowsTheVerifiersTheTestsRun() throws IOException {
        Path root = repositoryRoot();
        String guide = Files.readString(root.resolve(GUIDE));
        for (String verifier : VERIFIERS) {
            List<String> tested = shownPart(Files.readAllLines(root.resolve(verifier)), verifier);
            assertThat(String.join("\n", tested)).as("the part of %s the guide shows", verifier)
                    .contains("verify(").contains("v2");
            assertThat(blockAfterMarker(guide, verifier))
                    .as("the fenced block after '%s%s' in %s must be the lines between '%s' and '%s' in %s: change"
                            + " both together", GUIDE_MARKER, verifier, GUIDE, BEGIN, END, verifier)
                    .containsExactlyElementsOf(tested);
        }
    }

    @Test
    void aCopyThatDiffersByOneCharacterIsFound() {
        List<String> file = List.of("# " + BEGIN, "def verify(secret):", "    return \"v2\"", "# " + END, "main()");
        String guide = String.join("\n", "Text.", "", GUIDE_MARKER + "x/verify.py -->", "```python",
                "def verify(secret):", "    return \"v1\"", "```", "");

        List<String> shown = shownPart(file, "x/verify.py");
        assertThat(shown).containsExactly("def verify(secret):", "    return \"v2\"");
        assertThat(blockAfterMarker(guide, "x/verify.py")).isNotEqualTo(shown);
        assertThat(blockAfterMarker(guide.replace("v1", "v2"), "x/verify.py")).isEqualTo(shown);
        assertThatThrownBy(() -> blockAfterMarker(guide, "x/other.py")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("x/other.py");
    }

    /** The lines strictly between the file's begin and end markers (comment lines, in either language). */
    static List<String> shownPart(List<String> lines, String file) {
        int begin = onlyLine(lines, BEGIN, file);
        int end = onlyLine(lines, END, file);
        assertThat(end).as("'%s' comes after '%s' in %s", END, BEGIN, file).isGreaterThan(begin + 1);
        return lines.subList(begin + 1, end);
    }

    /** The body of the fenced block that follows the guide's marker for {@code file} (blank lines between allowed). */
    static List<String> blockAfterMarker(String markdown, String file) {
        List<String> lines = markdown.lines().toList();
        int marker = onlyLine(lines, GUIDE_MARKER + file + " ", GUIDE);
        int fence = marker + 1;
        while (fence < lines.size() && lines.get(fence).isBlank()) {
            fence++;
        }
        assertThat(fence < lines.size() && lines.get(fence).startsWith("```"))
                .as("a fenced block follows the marker for %s in %s", file, GUIDE).isTrue();
        int close = fence + 1;
        while (close < lines.size() && !lines.get(close).equals("```")) {
            close++;
        }
        assertThat(close).as("the block after the marker for %s in %s is closed", file, GUIDE).isLessThan(lines.size());
        return lines.subList(fence + 1, close);
    }

    private static int onlyLine(List<String> lines, String containing, String where) {
        int found = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(containing)) {
                assertThat(found).as("only one line of %s contains '%s'", where, containing).isEqualTo(-1);
                found = i;
            }
        }
        assertThat(found).as("a line of %s contains '%s'", where, containing).isNotEqualTo(-1);
        return found;
    }

    /** The folder holding {@code mvnw}, at or above the working directory (client/ under Maven). */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isRegularFile(dir.resolve(GUIDE))) {
                return dir;
            }
        }
        throw new AssertionError("no folder at or above " + Path.of("").toAbsolutePath() + " holds mvnw and " + GUIDE);
    }
}
