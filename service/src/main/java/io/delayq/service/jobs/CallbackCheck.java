package io.delayq.service.jobs;

import io.delayq.core.Callback;
import io.delayq.core.JobRules;
import io.delayq.service.delivery.CallbackGuard;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 *
 * <p>The checks of the URL itself depend on nothing but the URL and this instance's configuration, and producers send
 * the same few URLs again and again: a URL that passed them is remembered ({@value #REMEMBERED} at most, forgotten
 * all at once when full), so a repeat costs a map lookup instead of two URI parses and the guard's rules. What can
 * change, the addresses a name resolves to, is checked on every call.
 */
public final class CallbackCheck implements Consumer<Callback> {
    static final int REMEMBERED = 1_024;
    private final JobRules rules;
    private final CallbackGuard guard;
    /** URLs that passed {@link CallbackUrls#checkUrl} and {@link CallbackGuard#check}, to their host. */
    private final Map<String, String> passed = new ConcurrentHashMap<>();

    public CallbackCheck(JobRules rules, CallbackGuard guard) {
        this.rules = rules;
        this.guard = guard;
    }

    /** @throws IllegalArgumentException naming the field and what to change */
    @Override
    public void accept(Callback callback) {
        String host = passed.get(callback.url() == null ? "" : callback.url());
        if (host == null) {
            CallbackUrls.checkUrl(callback.url());
        }
        rules.checkCallbackHeaders(callback.headers());
        CallbackUrls.checkHeaders(callback.headers());
        if (host == null) {
            host = guard.check(callback.url()).getHost();
            remember(callback.url(), host);
        }
        CallbackGuard.checkHeaders(callback.headers());
        checkAddresses(host);
    }

    private void remember(String url, String host) {
        if (passed.size() >= REMEMBERED) {
            passed.clear(); // many distinct URLs: each costs its full check again, as before this map
        }
        passed.put(url, host);
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
