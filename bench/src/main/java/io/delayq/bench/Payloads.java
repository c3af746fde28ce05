package io.delayq.bench;

/**
 * The job every implementation carries: {@code {"id":N,"body":{…}}} where {@code body} is exactly 200 bytes of JSON
 * (an order-timeout record padded to size), about 219 bytes in all — PEERS.md's job.
 */
public final class Payloads {
    public static final int BODY_BYTES = 200;
    private static final String BODY = body();

    private Payloads() {
    }

    private static String body() {
        String head = "{\"type\":\"order.timeout\",\"orderId\":\"ORD-2026-000042\",\"customer\":\"cust-1234\","
                + "\"amountCents\":19990,\"currency\":\"EUR\",\"pad\":\"";
        String tail = "\"}";
        StringBuilder sb = new StringBuilder(head);
        while (sb.length() + tail.length() < BODY_BYTES) {
            sb.append('x');
        }
        return sb.append(tail).toString();
    }

    /** The 200-byte body. */
    public static String body200() {
        return BODY;
    }

    /** The whole job JSON for id {@code id}. */
    public static String job(int id) {
        return "{\"id\":" + id + ",\"body\":" + BODY + "}";
    }

    /** The id of a job JSON made by {@link #job}, without a JSON parser (it sits at a fixed place). */
    public static int idOf(String json) {
        int start = 6; // {"id":
        int end = json.indexOf(',', start);
        return Integer.parseInt(json, start, end, 10);
    }
}
