package dev.racelab.soak;

import java.util.List;

/** One run of the soak as it went: the plan, what was done and seen, the result and every problem found. */
record Report(Plan plan, Result result, List<String> problems, String inflicted, String note, Integer exit,
              double underWaySeconds, double faultSeconds, double printedSeconds, double exitSeconds,
              double boundSeconds, String verdict, List<String> command, String outcome, String stderrTail) {

    /** What became of a run, best first; every class from {@link #HUNG} on is a failure. */
    enum Result {
        OK("ok-as-expected"),
        FAULT_TOO_LATE("fault-too-late"),
        HUNG("hung"),
        WRONG_EXIT("wrong exit"),
        UNNAMED_CAUSE("unnamed cause"),
        RECORDING("recording invalid/missing"),
        PARTIAL_FILE("partial file left"),
        PROCESS_LEFT("process left");

        final String label;

        Result(String label) {
            this.label = label;
        }

        boolean failure() {
            return ordinal() >= HUNG.ordinal();
        }
    }
}
