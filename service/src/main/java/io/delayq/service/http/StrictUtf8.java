package io.delayq.service.http;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses request bodies that are not well-formed UTF-8 (RFC 3629) with 400, while they are read. JSON is UTF-8
 * (RFC 8259), and Jackson's decoder is lenient where it matters: it decodes the overlong {@code C0 AF} as {@code /},
 * which lets a payload say one thing to a byte-level filter and another to the receiver. Refused here: overlong forms,
 * UTF-16 surrogates, code points above U+10FFFF, stray continuation bytes, bytes {@code C0}, {@code C1} and
 * {@code F5}–{@code FF}, and a sequence cut off by the end of the body.
 */
public final class StrictUtf8 implements ReaderInterceptor {

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException {
        context.setInputStream(new Checked(context.getInputStream()));
        return context.proceed();
    }

    /**
     * Thrown while the body is read. A parser may wrap it (Jackson does, in a JsonMappingException), so the problem
     * mappers look for it among the causes.
     */
    public static final class Malformed extends WebApplicationException {
        Malformed(String message) {
            super(message, 400);
        }
    }

    /** Checks every byte as it passes, with the state of the sequence in progress carried between reads. */
    static final class Checked extends FilterInputStream {
        private long offset;
        /** Continuation bytes still expected by the sequence in progress. */
        private int pending;
        /** The allowed range of the next continuation byte (narrower right after some lead bytes). */
        private int low = 0x80;
        private int high = 0xBF;
        private long sequenceStart;

        Checked(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b < 0) {
                atEnd();
            } else {
                check(b);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int off, int length) throws IOException {
            int n = super.read(buffer, off, length);
            if (n < 0) {
                atEnd();
            }
            for (int i = 0; i < n; i++) {
                check(buffer[off + i] & 0xFF);
            }
            return n;
        }

        private void check(int b) {
            if (pending > 0) {
                if (b < low || b > high) {
                    throw malformed(sequenceStart);
                }
                pending--;
                low = 0x80;
                high = 0xBF;
            } else if (b >= 0x80) {
                sequenceStart = offset;
                // The ranges of Table 3-7 of the Unicode standard: the first continuation byte of E0, ED, F0 and F4
                // is narrowed to exclude overlong forms, surrogates and code points above U+10FFFF.
                if (b >= 0xC2 && b <= 0xDF) {
                    pending = 1;
                } else if (b == 0xE0) {
                    pending = 2;
                    low = 0xA0;
                } else if (b == 0xED) {
                    pending = 2;
                    high = 0x9F;
                } else if (b >= 0xE1 && b <= 0xEF) {
                    pending = 2;
                } else if (b == 0xF0) {
                    pending = 3;
                    low = 0x90;
                } else if (b >= 0xF1 && b <= 0xF3) {
                    pending = 3;
                } else if (b == 0xF4) {
                    pending = 3;
                    high = 0x8F;
                } else {
                    throw malformed(offset);
                }
            }
            offset++;
        }

        private void atEnd() {
            if (pending > 0) {
                throw malformed(sequenceStart);
            }
        }

        private static Malformed malformed(long at) {
            return new Malformed("The body is not valid UTF-8: the sequence at byte " + at + " (counted from 0) is not"
                    + " a UTF-8 encoded character. Send the body as UTF-8; other characters can be written as \\u"
                    + " escapes inside JSON strings");
        }
    }
}
