package io.delayq.service.delivery;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decides which callback URLs delayq may POST to, so that a producer cannot make the service call into places it
 * should not reach (cloud metadata endpoints, link-local services, internal networks when so configured).
 *
 * <p>Used twice: {@link #check(String)} when a job or a topic default callback is accepted (syntax, scheme, literal
 * addresses and names, without DNS), and {@link #resolve(URI)} right before each delivery, which resolves the host and
 * checks every address it resolves to, so that a name re-pointed later (DNS rebinding) cannot reach a refused range.
 *
 * <p>Rules, in order:
 * <ol>
 *   <li>only {@code http} and {@code https}, with a host, without user info;</li>
 *   <li>never this service itself: a port it listens on ({@link ServicePorts}, API and admin) at any address of this
 *       host (loopback, the wildcard, or an address of one of its interfaces), by address or by a name resolving to
 *       one, whatever the allow-list and {@code allowPrivateNetworks} say. The admin port's tasks need no token;</li>
 *   <li>a host named exactly in {@code allowedCallbackHosts}, or an address inside one of its CIDRs, is allowed
 *       (this is the only way to reach link-local or metadata addresses);</li>
 *   <li>when {@code allowedCallbackHosts} is not empty, every other host is refused;</li>
 *   <li>link-local (169.254.0.0/16, fe80::/10), cloud metadata (169.254.169.254, fd00:ec2::254,
 *       {@code metadata.google.internal}), unspecified (0.0.0.0, ::) and multicast addresses are refused;</li>
 *   <li>loopback and private ranges (127/8, ::1, 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) are allowed
 *       only when {@code allowPrivateNetworks} is true.</li>
 * </ol>
 * Allow-list entries are host names (matched case-insensitively and exactly, or {@code *.example.com} for any
 * subdomain), IP addresses, or CIDRs ({@code 10.1.0.0/16}, {@code fd12::/16}).
 *
 * <p>Thread-safe and immutable.
 */
public final class CallbackGuard {
    // Declared first: the CIDR constants below are parsed with them.
    private static final Pattern DOTTED_QUAD = Pattern.compile("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}");
    // Hosts made only of digits, dots and hex notation are IPv4 literals in some parser or other (2852039166,
    // 0xA9FEA9FE, 0251.0376.0251.0376); accept only the unambiguous dotted-quad form.
    private static final Pattern NUMERIC_LOOKING =
            Pattern.compile("(0x[0-9a-f]*|[0-9]+)(\\.(0x[0-9a-f]*|[0-9]+)){0,3}\\.?");

    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final Set<String> RESERVED_HEADERS = Set.of(
            "host", "connection", "content-length", "expect", "upgrade", "content-type", "transfer-encoding", "te",
            "trailer", "keep-alive", "proxy-connection");

    private static final Set<String> METADATA_NAMES = Set.of(
            "metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal");
    private static final Cidr LINK_LOCAL_V4 = Cidr.parse("169.254.0.0/16");
    private static final Cidr LINK_LOCAL_V6 = Cidr.parse("fe80::/10");
    private static final List<Cidr> METADATA_ADDRESSES = List.of(
            Cidr.parse("169.254.169.254/32"), Cidr.parse("fd00:ec2::254/128"), Cidr.parse("100.100.100.200/32"));
    private static final List<Cidr> PRIVATE = List.of(
            Cidr.parse("127.0.0.0/8"), Cidr.parse("::1/128"), Cidr.parse("10.0.0.0/8"), Cidr.parse("172.16.0.0/12"),
            Cidr.parse("192.168.0.0/16"), Cidr.parse("100.64.0.0/10"), Cidr.parse("fc00::/7"));
    private final List<String> allowedNames;
    private final List<String> allowedSuffixes;
    private final List<Cidr> allowedCidrs;
    private final boolean allowPrivateNetworks;
    private final ServicePorts servicePorts;

    /**
     * A guard that does not know the service's own ports (tests, tools); the service passes them, see
     * {@link #CallbackGuard(List, boolean, ServicePorts)}.
     */
    public CallbackGuard(List<String> allowedCallbackHosts, boolean allowPrivateNetworks) {
        this(allowedCallbackHosts, allowPrivateNetworks, new ServicePorts());
    }

    /**
     * @param allowedCallbackHosts host names, {@code *.domain} wildcards, addresses and CIDRs; empty = any host the
     *                             other rules allow
     * @param allowPrivateNetworks whether loopback and private ranges may be called
     * @param servicePorts         the ports this service listens on, never called at this host's addresses
     * @throws IllegalArgumentException for an entry that is none of those
     */
    public CallbackGuard(List<String> allowedCallbackHosts, boolean allowPrivateNetworks, ServicePorts servicePorts) {
        var names = new ArrayList<String>();
        var suffixes = new ArrayList<String>();
        var cidrs = new ArrayList<Cidr>();
        for (String raw : allowedCallbackHosts == null ? List.<String>of() : allowedCallbackHosts) {
            String entry = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
            if (entry.isEmpty()) {
                throw new IllegalArgumentException("delivery.allowedCallbackHosts has an empty entry");
            }
            if (entry.startsWith("[") && entry.endsWith("]")) {
                entry = entry.substring(1, entry.length() - 1);
            }
            if (entry.contains("/") || entry.contains(":") || DOTTED_QUAD.matcher(entry).matches()) {
                cidrs.add(Cidr.parse(entry.contains("/") ? entry : entry + (entry.contains(":") ? "/128" : "/32")));
            } else if (entry.startsWith("*.")) {
                suffixes.add(entry.substring(1));
            } else {
                names.add(stripTrailingDot(entry));
            }
        }
        this.allowedNames = List.copyOf(names);
        this.allowedSuffixes = List.copyOf(suffixes);
        this.allowedCidrs = List.copyOf(cidrs);
        this.allowPrivateNetworks = allowPrivateNetworks;
        this.servicePorts = servicePorts;
    }

    /** A guard without an allow-list that allows loopback and private networks (the embedded default). */
    public static CallbackGuard permissive() {
        return new CallbackGuard(List.of(), true);
    }

    /**
     * Checks a callback URL without resolving it: scheme, host syntax, allow-list, and the address rules for literal
     * addresses and well-known metadata names.
     *
     * @return the parsed URI
     * @throws IllegalArgumentException with a message saying what is wrong and how to allow it, when refused
     */
    public URI check(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("callback url is required: an absolute http:// or https:// URL");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("callback url '" + url + "' is not a valid URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!"http".equals(scheme) && !"https".equals(scheme)) {
            throw new IllegalArgumentException("callback url '" + url + "' must be an absolute http:// or https:// URL"
                    + (scheme == null ? "" : "; the scheme '" + scheme + "' is not supported"));
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("callback url '" + url
                    + "' must not contain user info; pass credentials in callback headers instead");
        }
        String host = host(uri);
        if (host == null) {
            throw new IllegalArgumentException("callback url '" + url + "' has no host");
        }
        InetAddress literal = literal(host, url);
        int port = port(uri, scheme);
        if (literal != null) {
            checkNotSelf(subject(url), host, literal, port);
            checkAddress(subject(url), host, literal);
        } else {
            checkName(subject(url), host);
            checkNameNotSelf(subject(url), host, port);
        }
        return uri;
    }

    /**
     * Checks a callback's own headers: names that HTTP or delayq set themselves ({@code Host}, {@code Connection},
     * {@code Content-Length}, {@code Expect}, {@code Upgrade}, {@code Content-Type}, {@code Delayq-*}) and values
     * with line breaks are refused, so a job cannot fail at delivery for a header it could never send.
     *
     * @throws IllegalArgumentException naming the header and why
     */
    public static void checkHeaders(java.util.Map<String, String> headers) {
        if (headers == null) {
            return;
        }
        for (var header : headers.entrySet()) {
            String name = header.getKey();
            if (name == null || !HEADER_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("callback header name '" + name + "' is not a valid HTTP header name");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (RESERVED_HEADERS.contains(lower) || lower.startsWith("delayq-")) {
                throw new IllegalArgumentException("callback header '" + name
                        + "' is set by delayq or by HTTP itself and cannot be given; remove it");
            }
            String value = header.getValue();
            if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("callback header '" + name + "' must have a value without line breaks");
            }
        }
    }

    /**
     * As {@link #resolve(String, int)} without the port, so without the rule that the service never calls itself
     * (which {@link #check} and the connection's own resolution apply).
     */
    public List<InetAddress> resolve(String host) {
        return resolve(host, -1);
    }

    /**
     * Resolves a callback host and checks every address it resolves to (and, for a name, the name rules), as the
     * delivery engine's HTTP client does when it connects: a name re-pointed at a refused range since the job was
     * accepted is refused then, on the addresses actually connected to. Blocks on DNS for names (the JVM caches
     * answers); instant for address literals.
     *
     * @param host the host as in the URL (brackets around IPv6 and a trailing dot allowed)
     * @param port the port to be connected to, which must not be one of this service's own at this host; {@code -1}
     *             when unknown
     * @return every address, all allowed
     * @throws IllegalArgumentException naming the host when refused or when it does not resolve
     */
    public List<InetAddress> resolve(String host, int port) {
        String name = host.toLowerCase(Locale.ROOT);
        if (name.startsWith("[") && name.endsWith("]")) {
            name = name.substring(1, name.length() - 1);
        }
        name = stripTrailingDot(name);
        String subject = "callback host '" + name + "'";
        InetAddress literal = literal(name, name);
        if (literal != null) {
            checkNotSelf(subject, name, literal, port);
            checkAddress(subject, name, literal);
            return List.of(literal);
        }
        checkName(subject, name);
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(name);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(subject + " does not resolve");
        }
        for (InetAddress address : addresses) {
            checkNotSelf(subject, name, address, port);
            checkAddress(subject, name, address);
        }
        return List.of(addresses);
    }

    /**
     * A name on one of the service's own ports is resolved now (through the JVM's cache), although {@link #check}
     * otherwise leaves names to delivery: only such URLs pay for it, and a name of this host is refused when given
     * rather than at its first attempt. A name that does not resolve yet is left to the connection's own check.
     */
    private void checkNameNotSelf(String subject, String host, int port) {
        if (!servicePorts.contains(port)) {
            return;
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException notYet) {
            return;
        }
        for (InetAddress address : addresses) {
            checkNotSelf(subject, host, address, port);
        }
    }

    /** Refuses this host's own addresses on the service's own ports, before any rule that could allow them. */
    private void checkNotSelf(String subject, String host, InetAddress address, int port) {
        if (servicePorts.contains(port) && isThisHost(address)) {
            throw new IllegalArgumentException(subject + " is refused: " + describe(host, address.getHostAddress())
                    + " port " + port + " is delayq's own API or admin port on this host; delayq never calls itself,"
                    + " whatever delivery.allowPrivateNetworks and delivery.allowedCallbackHosts say");
        }
    }

    /** Whether connecting to {@code address} reaches this host: loopback, the wildcard, or one of its interfaces. */
    private static boolean isThisHost(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException unknown) {
            return true; // cannot tell: refuse, since the port is ours
        }
    }

    private static int port(URI uri, String scheme) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return "https".equals(scheme) ? 443 : 80;
    }

    /** Whether a host (without IPv6 brackets) is an IPv6 or dotted-quad IPv4 literal rather than a name. */
    public static boolean isAddressLiteral(String host) {
        return host.contains(":") || DOTTED_QUAD.matcher(host).matches();
    }

    private void checkName(String subject, String host) {
        if (nameAllowListed(host)) {
            return;
        }
        if (!allowListEmpty()) {
            throw notAllowListed(subject, host);
        }
        if (METADATA_NAMES.contains(host)) {
            throw new IllegalArgumentException(subject + " is refused: " + host
                    + " is a cloud metadata endpoint; add it to delivery.allowedCallbackHosts if you really mean it");
        }
        if (!allowPrivateNetworks && (host.equals("localhost") || host.endsWith(".localhost"))) {
            throw privateRefused(subject, host, "localhost");
        }
    }

    private void checkAddress(String subject, String host, InetAddress address) {
        if (allowedCidrs.stream().anyMatch(c -> c.contains(address)) || allowedNames.contains(host)) {
            return; // named by the operator: the one way to reach what the rules below refuse
        }
        boolean bySuffix = allowedSuffixes.stream().anyMatch(host::endsWith);
        if (!allowListEmpty() && !bySuffix) {
            throw notAllowListed(subject, host);
        }
        String text = address.getHostAddress();
        if (METADATA_ADDRESSES.stream().anyMatch(c -> c.contains(address))) {
            throw new IllegalArgumentException(subject + " is refused: " + describe(host, text)
                    + " is a cloud metadata address; add it to delivery.allowedCallbackHosts if you really mean it");
        }
        if (LINK_LOCAL_V4.contains(address) || LINK_LOCAL_V6.contains(address)) {
            throw new IllegalArgumentException(subject + " is refused: " + describe(host, text)
                    + " is a link-local address; add it (or its CIDR) to delivery.allowedCallbackHosts to allow it");
        }
        if (address.isAnyLocalAddress() || address.isMulticastAddress()) {
            throw new IllegalArgumentException(subject + " is refused: " + describe(host, text)
                    + " is not a unicast address a callback can be sent to");
        }
        // A wildcard entry the operator wrote (*.corp.example) covers that domain's private addresses too.
        if (!allowPrivateNetworks && !bySuffix && PRIVATE.stream().anyMatch(c -> c.contains(address))) {
            throw privateRefused(subject, host, text);
        }
    }

    private boolean allowListEmpty() {
        return allowedNames.isEmpty() && allowedSuffixes.isEmpty() && allowedCidrs.isEmpty();
    }

    private boolean nameAllowListed(String host) {
        if (allowedNames.contains(host)) {
            return true;
        }
        for (String suffix : allowedSuffixes) {
            if (host.endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }

    private static IllegalArgumentException notAllowListed(String subject, String host) {
        return new IllegalArgumentException(subject + " is refused: host " + host
                + " is not in delivery.allowedCallbackHosts; add it (or its CIDR) there to allow it");
    }

    private static IllegalArgumentException privateRefused(String subject, String host, String address) {
        return new IllegalArgumentException(subject + " is refused: " + describe(host, address)
                + " is a loopback or private address and delivery.allowPrivateNetworks is false;"
                + " allow private networks or add it to delivery.allowedCallbackHosts");
    }

    private static String subject(String url) {
        return "callback url '" + url + "'";
    }

    private static String describe(String host, String address) {
        return host.equals(address) ? address : host + " (" + address + ")";
    }

    /** Lower-case host without IPv6 brackets or a trailing dot, or null. */
    private static String host(URI uri) {
        String host = uri.getHost();
        if (host == null) {
            return null;
        }
        host = host.toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return stripTrailingDot(host);
    }

    private static String stripTrailingDot(String host) {
        return host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    }

    /** The address of a literal host, null for a name; refuses ambiguous numeric forms. */
    private static InetAddress literal(String host, String url) {
        if (host.contains(":")) {
            int zone = host.indexOf('%');
            String bare = zone >= 0 ? host.substring(0, zone) : host;
            return parseLiteral(bare, url);
        }
        if (DOTTED_QUAD.matcher(host).matches()) {
            return parseLiteral(host, url);
        }
        if (NUMERIC_LOOKING.matcher(host).matches()) {
            throw new IllegalArgumentException("callback url '" + url + "' has the host '" + host
                    + "', which is ambiguous; write IPv4 addresses as four decimal numbers, e.g. 10.0.0.1");
        }
        return null;
    }

    private static InetAddress parseLiteral(String literal, String url) {
        try {
            // A literal (digits and dots, or contains ':') is parsed without any DNS query.
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("callback url '" + url + "' has an invalid address '" + literal + "'");
        }
    }

    /** An address range. */
    record Cidr(byte[] network, int prefix) {
        static Cidr parse(String text) {
            int slash = text.indexOf('/');
            if (slash < 0) {
                throw new IllegalArgumentException("'" + text + "' is not a CIDR");
            }
            String addr = text.substring(0, slash);
            InetAddress address;
            if (!addr.contains(":") && !DOTTED_QUAD.matcher(addr).matches()) {
                throw new IllegalArgumentException("delivery.allowedCallbackHosts entry '" + text
                        + "' is not a host name, an address or a CIDR");
            }
            try {
                address = InetAddress.getByName(addr);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("delivery.allowedCallbackHosts entry '" + text
                        + "' is not a valid address or CIDR");
            }
            int prefix;
            try {
                prefix = Integer.parseInt(text.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("CIDR '" + text + "' has an invalid prefix length");
            }
            byte[] bytes = address.getAddress();
            if (prefix < 0 || prefix > bytes.length * 8) {
                throw new IllegalArgumentException("CIDR '" + text + "' has a prefix length outside 0.." + bytes.length * 8);
            }
            return new Cidr(bytes, prefix);
        }

        boolean contains(InetAddress address) {
            byte[] bytes = address.getAddress();
            if (address instanceof Inet6Address v6 && network.length == 4) {
                byte[] mapped = ipv4Mapped(v6);
                if (mapped == null) {
                    return false;
                }
                bytes = mapped;
            } else if (address instanceof Inet4Address && network.length == 16) {
                return false;
            }
            if (bytes.length != network.length) {
                return false;
            }
            int full = prefix / 8;
            for (int i = 0; i < full; i++) {
                if (bytes[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return (bytes[full] & mask) == (network[full] & mask);
        }

        /** The IPv4 address inside an IPv4-compatible or NAT64 well-known-prefix IPv6 address, or null. */
        private static byte[] ipv4Mapped(Inet6Address v6) {
            byte[] b = v6.getAddress();
            boolean compatible = true;
            for (int i = 0; i < 12; i++) {
                if (b[i] != 0) {
                    compatible = false;
                    break;
                }
            }
            boolean nat64 = (b[0] & 0xFF) == 0x00 && (b[1] & 0xFF) == 0x64 && (b[2] & 0xFF) == 0xff
                    && (b[3] & 0xFF) == 0x9b;
            if ((compatible && !v6.isLoopbackAddress() && !v6.isAnyLocalAddress()) || nat64) {
                return new byte[]{b[12], b[13], b[14], b[15]};
            }
            return null;
        }
    }
}
