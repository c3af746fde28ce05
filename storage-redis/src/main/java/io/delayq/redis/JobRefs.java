package io.delayq.redis;

import io.delayq.core.JobRef;

/**
 * A job's ref as one string that cannot be confused with another's whatever characters topic and id hold:
 * {@code <length of topic>:<topic><id>} (e.g. {@code 3:a:bc} is topic {@code a:b}, id {@code c}). Used as the member of
 * the held-jobs sets ({@link RedisKeys#held}).
 */
final class JobRefs {
    private JobRefs() {
    }

    static String member(JobRef ref) {
        return ref.topic().length() + ":" + ref.topic() + ref.id();
    }

    /** @throws IllegalArgumentException when the text is not a member */
    static JobRef parse(String member) {
        int colon = member.indexOf(':');
        try {
            int length = Integer.parseInt(member.substring(0, colon));
            int idFrom = colon + 1 + length;
            return new JobRef(member.substring(colon + 1, idFrom), member.substring(idFrom));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a job ref member: '" + member + "'", e);
        }
    }
}
