package io.delayq.redis;

/**
 * The arguments most transition scripts take from the store's options, as the strings Redis is sent (made once, not
 * per call).
 *
 * @param retentionMs how long finished records are kept ({@code finishedRetention})
 * @param historySize attempts kept in a record's history
 */
record ScriptArgs(String retentionMs, String historySize) {
    static ScriptArgs of(RedisStoreOptions options) {
        return new ScriptArgs(Long.toString(options.finishedRetention().toMillis()),
                Integer.toString(options.historySize()));
    }
}
