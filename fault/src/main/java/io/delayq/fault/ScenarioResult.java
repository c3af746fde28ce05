package io.delayq.fault;

/**
 * A row of the table.
 *
 * @param tally           the job-by-job figures (null when the scenario broke off with an error)
 * @param serverErrors    5xx answers the producers got
 * @param recoverySeconds the scenario's recovery time (each scenario says from what to what), or NaN
 * @param notes           what else was measured
 * @param error           why the scenario broke off, or null
 */
record ScenarioResult(String name, Tally tally, long serverErrors, double recoverySeconds, String notes, String error) {

    static ScenarioResult failed(String name, Throwable e) {
        return new ScenarioResult(name, null, 0, Double.NaN, "", e.toString());
    }

    /** Nothing acknowledged lost, nothing early, and something acknowledged at all (else nothing was tested). */
    boolean passed() {
        return error == null && tally != null && tally.lost() == 0 && tally.early() == 0 && tally.acknowledged() > 0;
    }

    /** Why it did not pass, or "" when it did. */
    String verdict() {
        if (error != null) {
            return "broke off: " + error;
        }
        if (tally.acknowledged() == 0) {
            return "nothing was acknowledged, so nothing was tested";
        }
        StringBuilder why = new StringBuilder();
        if (tally.lost() > 0) {
            why.append(tally.lost()).append(" acknowledged job(s) lost, e.g. ").append(tally.lostSample());
        }
        if (tally.early() > 0) {
            why.append(why.isEmpty() ? "" : "; ").append(tally.early()).append(" job(s) delivered early");
        }
        return why.toString();
    }
}
