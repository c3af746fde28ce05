package io.delayq.core.tenant;

/**
 * Names an API token: its name is unique within its tenant ({@code tenant} {@code null}: an operators' token, unique
 * among those).
 */
public record TokenKey(String tenant, String name) {
    @Override
    public String toString() {
        return tenant == null ? name : tenant + "/" + name;
    }
}
