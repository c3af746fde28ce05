package io.delayq.core.listing;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A position in a job listing: the last job a page covered, as (position, id) — its due time (or finish time) in
 * epoch ms and its id. The next page starts strictly after it, so a job that stays where it was listed is neither
 * listed again nor skipped, whatever else comes and goes. Ids are ASCII ({@link io.delayq.core.JobRules}), so
 * {@link String#compareTo} is the byte order both stores sort by (Redis members, PostgreSQL {@code COLLATE "C"}).
 * Sent to clients as opaque text: base64url of {@code "<ms>:<id>"}.
 */
public record JobCursor(long position, String id) implements Comparable<JobCursor> {
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    public static JobCursor parse(String text) {
        try {
            String plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.US_ASCII);
            int colon = plain.indexOf(':');
            if (colon < 1) {
                throw new IllegalArgumentException("no position");
            }
            return new JobCursor(Long.parseLong(plain.substring(0, colon)), plain.substring(colon + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cursor is not one this listing answered (send a page's nextCursor"
                    + " as it came)");
        }
    }

    public String encode() {
        return ENCODER.encodeToString((position + ":" + id).getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    public int compareTo(JobCursor o) {
        int c = Long.compare(position, o.position);
        return c != 0 ? c : id.compareTo(o.id);
    }
}
