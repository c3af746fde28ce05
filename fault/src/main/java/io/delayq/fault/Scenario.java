package io.delayq.fault;

/** One fault, acted out on the rig while producers send jobs and receivers record what arrives. */
interface Scenario {
    /** A short name, for {@code --only} and the table. */
    String name();

    /** What it does, one line. */
    String description();

    ScenarioResult run(FaultRig rig) throws Exception;
}
