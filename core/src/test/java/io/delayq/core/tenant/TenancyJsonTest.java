package io.delayq.core.tenant;

import io.delayq.core.StoreException;
import io.delayq.core.StoreStatus;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TenancyJsonTest {
    private static final String SECRET = "s3cret-s3cret-s3cret";
    private static final Tenant BILLING = new Tenant("billing",
            List.of(TopicPattern.of("billing.*"), TopicPattern.of("invoices")),
            new TenantQuotas(10_000L, 0.5, 3, 32_768, 30), 3,
            List.of(new SigningSecret("2026-11", SECRET)), false);

    @Test
    void aTenantAndATokenComeBackAsWritten() {
        assertThat(TenancyJson.readTenant(TenancyJson.write(BILLING), "here")).isEqualTo(BILLING);
        Tenant plain = new Tenant("plain", List.of(TopicPattern.of("p.*")), TenantQuotas.none(), 1, List.of(), true);
        assertThat(TenancyJson.readTenant(TenancyJson.write(plain), "here")).isEqualTo(plain);

        ApiToken ops = new ApiToken(null, "ops", Set.of("admin"), "0f".repeat(32), 1L, null, null, false);
        ApiToken ci = new ApiToken("billing", "ci", Set.of("producer", "viewer"), "ab".repeat(32), 1L, 2L, 3L, true);
        assertThat(TenancyJson.readToken(TenancyJson.write(ops), "here")).isEqualTo(ops);
        assertThat(TenancyJson.readToken(TenancyJson.write(ci), "here")).isEqualTo(ci);
    }

    @Test
    void theStoredFormIsTheRecordsComponentsAndNothingDerived() {
        assertThat(TenancyJson.write(BILLING)).contains("\"topics\":[\"billing.*\",\"invoices\"]")
                .doesNotContain("wildcard").doesNotContain("effectiveBurst");
        ApiToken ops = new ApiToken(null, "ops", Set.of("admin"), "0f".repeat(32), 1L, null, null, false);
        assertThat(TenancyJson.write(ops)).doesNotContain("\"key\"").doesNotContain("active");
    }

    @Test
    void fieldsOfALaterVersionArePassedOver() {
        String later = TenancyJson.write(BILLING).replaceFirst("\\{", "{\"dispatchClass\":\"gold\",");
        assertThat(TenancyJson.readTenant(later, "here")).isEqualTo(BILLING);
    }

    @Test
    void aRecordThatCannotBeReadIsNamedWithoutQuotingItsValues() {
        String shortSecret = TenancyJson.write(BILLING).replace(SECRET, "short-value");
        assertThatThrownBy(() -> TenancyJson.readTenant(shortSecret, "tenant 'billing' in the test"))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.status())
                        .isEqualTo(StoreStatus.UNAVAILABLE))
                .hasMessageContaining("tenant 'billing' in the test")
                .hasMessageContaining("16 to 256 bytes")
                .hasMessageNotContaining("short-value")
                .hasNoCause();

        String wrongType = TenancyJson.write(BILLING).replace("\"weight\":3", "\"weight\":\"" + SECRET + "\"");
        assertThatThrownBy(() -> TenancyJson.readTenant(wrongType, "tenant 'billing'"))
                .hasMessageContaining("at weight").hasMessageNotContaining(SECRET);

        assertThatThrownBy(() -> TenancyJson.readToken("{\"name\": " + SECRET, "token x"))
                .hasMessageContaining("token x").hasMessageNotContaining(SECRET);
    }
}
