package io.delayq.postgres.archive;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Signs the dead letters archived without a failure signature (before migration V5, or by an older instance during a
 * rolling upgrade): reads them {@code batch} at a time through {@code delayq_dead_letters_unsigned}, computes
 * {@link ArchiveRows.Signed} in Java ({@code FailureSignature.of(job)}, whose regular expressions SQL does not
 * reproduce exactly) and writes it with {@code sign.sql}. A letter this version cannot read stays unsigned and is
 * passed over (logged), so a run always ends.
 */
final class SignatureBackfill {
    private static final Logger LOG = LoggerFactory.getLogger(SignatureBackfill.class);

    private final ArchiveStatements statements;
    private final ArchiveRows rows;

    SignatureBackfill(ArchiveStatements statements, ArchiveRows rows) {
        this.statements = statements;
        this.rows = rows;
    }

    /**
     * Signs up to {@code maxBatches} batches of {@code batch} letters.
     *
     * @return how many letters were signed
     */
    long run(int batch, int maxBatches) {
        long signed = 0;
        String after = "";
        for (int b = 0; b < maxBatches; b++) {
            List<ArchiveRows.UnsignedLetter> letters = statements.unsignedDeadLetters(after, batch);
            if (letters.isEmpty()) {
                break;
            }
            List<String> keys = new ArrayList<>();
            List<ArchiveRows.Signed> signatures = new ArrayList<>();
            for (ArchiveRows.UnsignedLetter letter : letters) {
                after = letter.key();
                try {
                    signatures.add(ArchiveRows.Signed.of(rows.job(letter.jobJson(), letter.payload())));
                    keys.add(letter.key());
                } catch (RuntimeException e) {
                    LOG.warn("Dead letter {} cannot be read to compute its failure signature; it stays out of failure"
                            + " groups: {}", letter.key(), e.toString());
                }
            }
            if (!keys.isEmpty()) {
                signed += statements.sign(keys.toArray(String[]::new),
                        signatures.stream().map(ArchiveRows.Signed::id).toArray(String[]::new),
                        signatures.stream().map(ArchiveRows.Signed::kind).toArray(String[]::new),
                        signatures.stream().map(ArchiveRows.Signed::message).toArray(String[]::new),
                        signatures.stream().map(ArchiveRows.Signed::host).toArray(String[]::new),
                        signatures.stream().map(ArchiveRows.Signed::httpStatus).toArray(Integer[]::new));
            }
            if (letters.size() < batch) {
                break;
            }
        }
        if (signed > 0) {
            LOG.info("Gave {} dead letters archived before failure signatures their signature", signed);
        }
        return signed;
    }
}
