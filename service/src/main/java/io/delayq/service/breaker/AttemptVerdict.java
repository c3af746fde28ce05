package io.delayq.service.breaker;

/** What an attempt says about its callback origin's health. */
enum AttemptVerdict {
    /** The origin answered (any 1xx–4xx status): it is up, whatever it thought of the job. */
    ANSWERED,
    /** A connection failure, a timeout or a 5xx: counts toward opening the circuit. */
    FAILED,
    /** Nothing about the origin: delayq itself refused the address the callback host resolved to. */
    SILENT;

    /**
     * @param failure why no answer came (a cause chain), or {@code null} when there was a status
     * @param status  the answer's status when {@code failure} is null
     */
    static AttemptVerdict of(Throwable failure, int status) {
        if (failure == null) {
            return status >= 500 ? FAILED : ANSWERED;
        }
        for (Throwable e = failure; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof IllegalArgumentException) {
                return SILENT; // the callback guard's refusal, as FailureMessages reads it
            }
        }
        return FAILED;
    }
}
