package io.delayq.service.delivery;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads a callback's answer: nothing for a success, and the first bytes of the body for a failure, for the job's
 * history. The rest is consumed and dropped so that a receiver answering with a huge body costs no memory and the
 * connection can be reused.
 */
final class ResponseSnippet implements HttpResponse.BodyHandler<String> {
    static final int MAX_BYTES = 256;
    static final ResponseSnippet INSTANCE = new ResponseSnippet();

    @Override
    public HttpResponse.BodySubscriber<String> apply(HttpResponse.ResponseInfo info) {
        if (info.statusCode() >= 200 && info.statusCode() < 300) {
            return HttpResponse.BodySubscribers.replacing(null);
        }
        return new Prefix();
    }

    private static final class Prefix implements HttpResponse.BodySubscriber<String> {
        private final CompletableFuture<String> result = new CompletableFuture<>();
        private final byte[] prefix = new byte[MAX_BYTES];
        private int length;

        @Override
        public CompletionStage<String> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            for (ByteBuffer buffer : buffers) {
                int take = Math.min(buffer.remaining(), MAX_BYTES - length);
                if (take > 0) {
                    buffer.get(prefix, length, take);
                    length += take;
                }
            }
        }

        @Override
        public void onError(Throwable throwable) {
            result.completeExceptionally(throwable);
        }

        @Override
        public void onComplete() {
            String text = new String(prefix, 0, length, StandardCharsets.UTF_8).strip();
            result.complete(text.replaceAll("\\s+", " "));
        }
    }
}
