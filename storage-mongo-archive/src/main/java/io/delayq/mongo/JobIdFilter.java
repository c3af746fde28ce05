package io.delayq.mongo;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A Bloom filter of the keys {@link ArchivedJobIds} lists, in this process's memory, so that a lookup of an id the
 * archive never held usually needs no round trip at all: "not in the filter" is certain (every listed key was added
 * before its entry was written), "in the filter" sends the lookup on to the directory. Fixed at 2<sup>23</sup> bits
 * (1 MiB) with {@value #HASHES} hashes: about 2 % false positives at a million ids, more beyond, each costing only the
 * directory lookup it would have cost anyway. Entries that expire stay in it until the next start rebuilds it.
 *
 * <p>Bits only ever go from 0 to 1, set with compare-and-set, so readers need no lock.
 */
final class JobIdFilter {
    static final int BITS_LOG2 = 23;
    static final int HASHES = 4;
    private static final long MASK = (1L << BITS_LOG2) - 1;

    private final AtomicLongArray words = new AtomicLongArray(1 << (BITS_LOG2 - 6));

    void add(String key) {
        long h = hash(key);
        long step = (h >>> 32) | 1; // double hashing: bit i is h + i * step
        for (int i = 0; i < HASHES; i++) {
            long bit = (h + i * step) & MASK;
            int word = (int) (bit >>> 6);
            long mask = 1L << (bit & 63);
            long old;
            do {
                old = words.get(word);
            } while ((old & mask) == 0 && !words.compareAndSet(word, old, old | mask));
        }
    }

    boolean mightContain(String key) {
        long h = hash(key);
        long step = (h >>> 32) | 1;
        for (int i = 0; i < HASHES; i++) {
            long bit = (h + i * step) & MASK;
            if ((words.get((int) (bit >>> 6)) & (1L << (bit & 63))) == 0) {
                return false;
            }
        }
        return true;
    }

    /** 64-bit FNV-1a over the key's UTF-8 bytes, then a murmur finaliser so both halves mix every byte. */
    private static long hash(String key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb93fe1a85b69L;
        return h ^ (h >>> 33);
    }
}
