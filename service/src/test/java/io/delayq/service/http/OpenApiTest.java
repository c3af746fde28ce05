package io.delayq.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.Api;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The hand-written OpenAPI document is served, and names every path and method the running service has. */
@ExtendWith(DropwizardExtensionsSupport.class)
class OpenApiTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();

    @Test
    void servedAsYamlAndJsonWithoutAToken() throws Exception {
        Api anonymous = TestApps.api(APP).as(null);

        Answer yaml = anonymous.get("/openapi.yaml");
        assertThat(yaml.status()).isEqualTo(200);
        assertThat(yaml.contentType()).startsWith("application/yaml");
        JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(yaml.raw().body());
        assertThat(doc.path("openapi").asText()).isEqualTo("3.1.0");

        Answer json = anonymous.get("/openapi.json");
        assertThat(json.status()).isEqualTo(200);
        assertThat(json.json()).isEqualTo(doc);
    }

    /**
     * A real OpenAPI 3.1 parser reads the document as served without a single message: no unresolved reference, no
     * value of the wrong type, and no stray property (a description with a comma inside a YAML flow mapping,
     * {@code {description: The payload, verbatim}}, is read as a second key {@code verbatim} with no value).
     */
    @Test
    void aStandardParserReadsItWithoutAMessage() throws Exception {
        String yaml = TestApps.api(APP).as(null).get("/openapi.yaml").raw().body();
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(yaml, null, options);

        assertThat(result.getMessages()).isEmpty();
        assertThat(result.getOpenAPI().getPaths()).containsKeys("/v1/topics/{topic}/jobs", "/v1/admin/bulk-operations");
        assertThat(result.getOpenAPI().getComponents().getSchemas().get("Job").getProperties())
                .doesNotContainKey("verbatim");
        // The same check by hand, so that it holds whatever the parser forgives: no key without a value anywhere.
        assertThat(keysWithoutValue(new ObjectMapper(new YAMLFactory()).readTree(yaml), "")).isEmpty();
    }

    private static List<String> keysWithoutValue(JsonNode node, String at) {
        List<String> out = new ArrayList<>();
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if (e.getValue().isNull()) {
                    out.add(at + "/" + e.getKey());
                }
                out.addAll(keysWithoutValue(e.getValue(), at + "/" + e.getKey()));
            });
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                out.addAll(keysWithoutValue(node.get(i), at + "/" + i));
            }
        }
        return out;
    }

    @Test
    void describesEveryResourceMethodOfTheRunningService() throws Exception {
        JsonNode paths = new ObjectMapper(new YAMLFactory()).readTree(OpenApiResource.load()).path("paths");
        Set<String> documented = new TreeSet<>();
        paths.fields().forEachRemaining(p -> p.getValue().fieldNames().forEachRemaining(m -> {
            if (!m.equals("parameters")) {
                documented.add(m.toUpperCase(Locale.ROOT) + " " + p.getKey());
            }
        }));

        Set<String> served = registeredResourceClasses()
                .flatMap(OpenApiTest::operations)
                .collect(Collectors.toCollection(TreeSet::new));

        assertThat(served).isNotEmpty().contains("POST /v1/topics/{topic}/jobs", "GET /openapi.yaml");
        assertThat(documented).containsAll(served);
    }

    private static Stream<Class<?>> registeredResourceClasses() {
        var config = APP.getEnvironment().jersey().getResourceConfig();
        return Stream.concat(config.getClasses().stream(), config.getInstances().stream().map(Object::getClass))
                .filter(c -> c.isAnnotationPresent(Path.class))
                .distinct();
    }

    private static Stream<String> operations(Class<?> resource) {
        String root = resource.getAnnotation(Path.class).value();
        return Arrays.stream(resource.getMethods()).flatMap(method -> httpMethod(method).stream()
                .map(verb -> verb + " " + join(root, method.isAnnotationPresent(Path.class)
                        ? method.getAnnotation(Path.class).value() : "")));
    }

    private static java.util.Optional<String> httpMethod(Method method) {
        return Arrays.stream(method.getAnnotations())
                .map(a -> a.annotationType().getAnnotation(HttpMethod.class))
                .filter(java.util.Objects::nonNull)
                .map(HttpMethod::value)
                .findFirst();
    }

    static String join(String root, String sub) {
        String path = ("/" + root + "/" + sub).replaceAll("/+", "/");
        path = path.replaceAll("\\{(\\w+)\\s*:[^}]*}", "{$1}");
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
