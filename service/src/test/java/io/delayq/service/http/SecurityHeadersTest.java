package io.delayq.service.http;

import io.delayq.service.DelayqConfiguration;
import io.delayq.service.support.Api;
import io.delayq.service.support.Api.Answer;
import io.delayq.service.support.TestApps;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every answer of the application port carries the browser's protections: a Content-Security-Policy (the dashboard's
 * allows its own scripts and styles only; the API's allows nothing), no framing, no MIME sniffing, no referrer. And
 * the dashboard's files need nothing that policy forbids: no inline script or style, no style attribute, no eval.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SecurityHeadersTest {
    static final DropwizardAppExtension<DelayqConfiguration> APP = TestApps.app();
    private static final Path UI = Path.of("src", "main", "resources", "assets", "ui");

    @Test
    void everyAnswerCarriesTheSecurityHeaders() {
        Api admin = TestApps.api(APP).as(TestApps.ADMIN);
        Api anonymous = admin.as(null);
        Map<String, Answer> answers = Map.of(
                "/ui/", anonymous.get("/ui/"),
                "/ui/js/app.js", anonymous.get("/ui/js/app.js"),
                "/ui/style.css", anonymous.get("/ui/style.css"),
                "/v1/me", admin.get("/v1/me"),
                "/v1/me without a token", anonymous.get("/v1/me"),
                "/v1/topics/t/jobs/nope", admin.get("/v1/topics/t/jobs/nope"),
                "/openapi.yaml", anonymous.get("/openapi.yaml"),
                "/no/such/path", anonymous.get("/no/such/path"),
                "an encoded slash (Jetty's refusal)", anonymous.get("/v1/topics/a%2Fb"));
        answers.forEach((what, answer) -> {
            assertThat(answer.header("X-Content-Type-Options")).as(what + ": " + answer.status()).isEqualTo("nosniff");
            assertThat(answer.header("Referrer-Policy")).as(what).isEqualTo("no-referrer");
            assertThat(answer.header("X-Frame-Options")).as(what).isEqualTo("DENY");
            assertThat(answer.header("Content-Security-Policy")).as(what).contains("frame-ancestors 'none'")
                    .doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");
        });
        String dashboard = answers.get("/ui/").header("Content-Security-Policy");
        assertThat(dashboard).contains("default-src 'none'").contains("script-src 'self'")
                .contains("style-src 'self'").contains("connect-src 'self'").contains("base-uri 'none'");
        assertThat(answers.get("/v1/me").header("Content-Security-Policy")).startsWith("default-src 'none'");
    }

    @Test
    void theDashboardNeedsNothingItsPolicyForbids() throws IOException {
        String index = Files.readString(UI.resolve("index.html"));
        Matcher script = Pattern.compile("<script\\b([^>]*)>").matcher(index);
        while (script.find()) {
            assertThat(script.group(1)).as("every script is a file").contains("src=");
        }
        assertThat(index).doesNotContain("<style").doesNotContainPattern("\\sstyle=")
                .doesNotContainPattern("\\son[a-z]+=");
        List<Path> scripts;
        try (Stream<Path> files = Files.walk(UI.resolve("js"))) {
            scripts = files.filter(f -> f.toString().endsWith(".js")).toList();
        }
        assertThat(scripts).hasSizeGreaterThan(5);
        for (Path file : scripts) {
            String js = Files.readString(file);
            assertThat(js).as(file + ": an element's style attribute (CSP style-src)")
                    .doesNotContainPattern("[{,]\\s*style\\s*:").doesNotContain("setAttribute('style'")
                    .doesNotContain("setAttribute(\"style\"");
            assertThat(js).as(file + ": code from text (CSP script-src)").doesNotContainPattern("\\beval\\(")
                    .doesNotContain("new Function").doesNotContain("innerHTML").doesNotContain("javascript:");
        }
    }
}
