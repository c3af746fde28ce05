package io.delayq.service.scheduling;

import io.delayq.core.Callback;
import io.delayq.core.JobRules;
import io.delayq.service.delivery.CallbackGuard;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.function.Consumer;

/**
 * Every rule a callback must pass before a job, a topic default or a replayed dead letter may name it, so that no
 * callback is accepted that delivery would refuse when that can be known already: the shape ({@link CallbackUrls}),
 * the header limits ({@link JobRules}), and the delivery engine's own {@link CallbackGuard} — the URL and headers as
 * it checks them, and the addresses the host resolves to now.
 *
 * <p>A host name that does not resolve (yet) is accepted: its addresses cannot be known until delivery, where the
 * engine resolves and checks them again on every attempt. Resolving here goes through the JVM's DNS cache, as the
 * engine's does.
 */
public final class CallbackCheck implements Consumer<Callback> {
    private final JobRules rules;
    private final CallbackGuard guard;

    public CallbackCheck(JobRules rules, CallbackGuard guard) {
        this.rules = rules;
        this.guard = guard;
    }

    /** @throws IllegalArgumentException naming the field and what to change */
    @Override
    public void accept(Callback callback) {
        CallbackUrls.checkUrl(callback.url());
        rules.checkCallbackHeaders(callback.headers());
        CallbackUrls.checkHeaders(callback.headers());
        URI uri = guard.check(callback.url());
        CallbackGuard.checkHeaders(callback.headers());
        checkAddresses(uri.getHost());
    }

    private void checkAddresses(String host) {
        if (CallbackGuard.isAddressLiteral(host.startsWith("[") ? host.substring(1, host.length() - 1) : host)) {
            return; // an address literal resolves to itself, which the guard's check of the URL has judged already
        }
        try {
            InetAddress.getAllByName(host);
        } catch (UnknownHostException notYet) {
            return;
        }
        guard.resolve(host);
    }
}
