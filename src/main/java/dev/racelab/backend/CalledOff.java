package dev.racelab.backend;

/**
 * A start of an embedded server was called off half-way because RaceLab is shutting down (a
 * signal, the window closing): whoever catches it stops what the start had started, then reports
 * the start as not made.
 */
final class CalledOff extends Exception {

    CalledOff() {
        super("RaceLab is shutting down");
    }
}
