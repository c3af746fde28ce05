package io.delayq.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client covers the service's API (issue 29): every operation of the OpenAPI document has a public method of
 * {@link DelayqClient} marked {@link Operation} with its {@code operationId}, every such mark names an operation the
 * document has, and every public instance method of the client carries one, so a method added later cannot skip the
 * mapping. No server: it reads {@value #DOCUMENT} from the repository.
 *
 * <p>Overloads of one name count as one method. An operation has exactly one method unless {@link #SEVERAL} lists it
 * with its methods ({@code get}/{@code find}, a bulk operation's dry run and its start, …).
 */
class OpenApiCoverageTest {
    static final String DOCUMENT = "service/src/main/resources/io/delayq/service/openapi.yaml";

    /**
     * Operations that are not meaningful as a client method, each with the reason. The test fails when one of them
     * leaves the document (drop it here) or gains a client method (then it is covered: drop it here).
     */
    static final Map<String, String> EXCLUDED = Map.of(
            "openApiYaml", "the API description itself (GET /openapi.yaml), for tools and people, not a call an"
                    + " application makes; the client is the typed form of it",
            "openApiJson", "the same document as JSON (GET /openapi.json)");

    /**
     * The operations sent by more than one method (overloads of one name count as one method), with those methods'
     * names: any other operation has exactly one, so a mark copied onto the wrong method shows up.
     */
    static final Map<String, Set<String>> SEVERAL = Map.of(
            "getJob", Set.of("get", "find"),                       // find: the same GET, empty instead of a 404
            "leaseJobs", Set.of("lease", "leaseAsync"),
            "nackJob", Set.of("nack", "nackNoRetry"),              // nackNoRetry: the body's noRetry flag
            // a bulk operation's dry run and start, on jobs and on dead letters: one endpoint, four typed forms
            "startBulkOperation", Set.of("countJobs", "startJobOperation", "countDeadLetters",
                    "startDeadLetterOperation"));

    /** Public methods of the client that send no request, so carry no {@link Operation}. None today. */
    static final Set<String> LOCAL_METHODS = Set.of();

    @Test
    void everyOperationOfTheDocumentHasAClientMethod() throws IOException {
        Set<String> documented = operationIds();
        Map<String, List<String>> covered = annotatedMethods();

        Set<String> missing = new TreeSet<>(documented);
        missing.removeAll(covered.keySet());
        missing.removeAll(EXCLUDED.keySet());
        assertThat(missing).as("operations of %s without a DelayqClient method marked @Operation(\"<id>\")", DOCUMENT)
                .isEmpty();
    }

    @Test
    void everyMarkNamesAnOperationOfTheDocument() throws IOException {
        Set<String> documented = operationIds();
        Map<String, List<String>> unknown = new TreeMap<>(annotatedMethods());
        unknown.keySet().removeAll(documented);
        assertThat(unknown).as("@Operation ids that %s does not have (renamed or removed there?)", DOCUMENT).isEmpty();
    }

    @Test
    void eachOperationHasOneMethodUnlessListedAsSeveral() {
        Map<String, Set<String>> names = new TreeMap<>();
        annotatedMethods().forEach((id, methods) -> names.put(id, new TreeSet<>(methods)));
        Map<String, Set<String>> several = new TreeMap<>();
        names.forEach((id, methods) -> {
            if (methods.size() > 1 || SEVERAL.containsKey(id)) {
                several.put(id, methods);
            }
        });
        assertThat(several).as("operations marked on more than one method (by name): each must be in SEVERAL with"
                + " exactly those methods").isEqualTo(new TreeMap<>(SEVERAL));
    }

    @Test
    void everyPublicMethodOfTheClientIsMarked() {
        List<String> unmarked = new ArrayList<>();
        for (Method m : DelayqClient.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()
                    && m.getAnnotation(Operation.class) == null && !LOCAL_METHODS.contains(m.getName())) {
                unmarked.add(m.toGenericString());
            }
        }
        assertThat(unmarked).as("public DelayqClient methods without @Operation: mark each with the operationId it"
                + " sends").isEmpty();
    }

    @Test
    void theExclusionsAreStillInTheDocumentAndStillWithoutAMethod() throws IOException {
        Set<String> documented = operationIds();
        Map<String, List<String>> covered = annotatedMethods();
        for (String excluded : EXCLUDED.keySet()) {
            assertThat(documented).as("excluded operation %s is no longer in %s: drop it from EXCLUDED", excluded,
                    DOCUMENT).contains(excluded);
            assertThat(covered).as("excluded operation %s now has a method: drop it from EXCLUDED", excluded)
                    .doesNotContainKey(excluded);
        }
    }

    @Test
    void theDocumentIsReadWhole() throws IOException {
        // A guard against a reader that finds nothing (then every check above would pass vacuously).
        assertThat(operationIds()).hasSizeGreaterThan(40).contains("scheduleJob", "leaseJobs", "me", "openApiYaml");
    }

    /** Every operationId under paths, across methods. */
    static Set<String> operationIds() throws IOException {
        JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(repositoryRoot().resolve(DOCUMENT)));
        Set<String> ids = new TreeSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = doc.path("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (String method : List.of("get", "put", "post", "delete", "patch", "head", "options", "trace")) {
                JsonNode operation = path.getValue().get(method);
                if (operation != null) {
                    String id = operation.path("operationId").asText(null);
                    assertThat(id).as("%s %s has no operationId", method.toUpperCase(), path.getKey()).isNotBlank();
                    assertThat(ids.add(id)).as("operationId %s appears twice", id).isTrue();
                }
            }
        }
        return ids;
    }

    /** operationId → the client methods marked with it. */
    static Map<String, List<String>> annotatedMethods() {
        Map<String, List<String>> byId = new TreeMap<>();
        for (Method m : DelayqClient.class.getDeclaredMethods()) {
            Operation op = m.getAnnotation(Operation.class);
            if (op != null) {
                assertThat(Modifier.isPublic(m.getModifiers())).as("%s is marked but not public", m).isTrue();
                byId.computeIfAbsent(op.value(), k -> new ArrayList<>()).add(m.getName());
            }
        }
        return byId;
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isRegularFile(dir.resolve(DOCUMENT))) {
                return dir;
            }
        }
        throw new AssertionError("no folder at or above " + Path.of("").toAbsolutePath() + " holds mvnw and " + DOCUMENT);
    }
}
