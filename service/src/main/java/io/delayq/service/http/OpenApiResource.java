package io.delayq.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The API description (OpenAPI 3.1), hand-written in {@code openapi.yaml} next to this class, served without a token
 * as YAML and as JSON.
 */
@Path("/")
@PermitAll
public class OpenApiResource {
    static final String RESOURCE = "/io/delayq/service/openapi.yaml";

    private final String yaml;
    private final String json;

    public OpenApiResource(ObjectMapper mapper) {
        this.yaml = load();
        try {
            JsonNode tree = new ObjectMapper(new YAMLFactory()).readTree(yaml);
            this.json = mapper.writerWithDefaultPrettyPrinter().writeValueAsString(tree);
        } catch (IOException e) {
            throw new UncheckedIOException("openapi.yaml is not valid YAML", e);
        }
    }

    /** The OpenAPI document as YAML. 200 OK. */
    @GET
    @Path("openapi.yaml")
    @Produces("application/yaml")
    public String yaml() {
        return yaml;
    }

    /** The OpenAPI document as JSON. 200 OK. */
    @GET
    @Path("openapi.json")
    @Produces(MediaType.APPLICATION_JSON)
    public String json() {
        return json;
    }

    static String load() {
        try (InputStream in = OpenApiResource.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
