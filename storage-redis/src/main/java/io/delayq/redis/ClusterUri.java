package io.delayq.redis;

import redis.clients.jedis.HostAndPort;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A cluster's {@code uri}: {@code redis[s]://[user:password@]host:port,host:port,…[/database]}, one scheme and user
 * for every seed node. Parsed in one place for the configuration's validation and for {@link RedisClients#cluster}.
 *
 * @param scheme   {@code redis://} or {@code rediss://}
 * @param userInfo {@code user:password@}, or empty
 * @param nodes    the seed nodes, in the order given
 */
record ClusterUri(String scheme, String userInfo, Set<HostAndPort> nodes) {
    private static final Pattern NODE = Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9._-]+):(\\d{1,5})");

    /** @throws IllegalArgumentException saying what is wrong */
    static ClusterUri parse(String uri) {
        int schemeEnd = uri.indexOf("://");
        if (schemeEnd < 0) {
            throw new IllegalArgumentException("no scheme");
        }
        String scheme = uri.substring(0, schemeEnd + 3);
        String rest = uri.substring(scheme.length());
        int at = rest.lastIndexOf('@');
        String userInfo = at >= 0 ? rest.substring(0, at + 1) : "";
        String hosts = rest.substring(userInfo.length());
        int slash = hosts.indexOf('/');
        if (slash >= 0) {
            if (!hosts.substring(slash).matches("/\\d{0,9}")) {
                throw new IllegalArgumentException("not a database number: " + hosts.substring(slash));
            }
            hosts = hosts.substring(0, slash);
        }
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        for (String node : hosts.split(",", -1)) {
            Matcher m = NODE.matcher(node.trim());
            if (!m.matches() || !validPort(Integer.parseInt(m.group(2)))) {
                throw new IllegalArgumentException("not host:port: '" + node + "'");
            }
            nodes.add(HostAndPort.from(node.trim()));
        }
        return new ClusterUri(scheme, userInfo, nodes);
    }

    static boolean validPort(int port) {
        return port >= 1 && port <= 65535;
    }
}
