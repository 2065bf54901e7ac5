package dev.racelab.isolation;

/**
 * A marker on a step in a permutation line: a condition that holds back the report of the step's
 * completion (never its launch). isolationtester's three kinds, with its spellings:
 * {@code s1a(*)}, {@code s1a(s2b)}, {@code s1a(s2b notices 2)}.
 */
public sealed interface Blocker {

    /**
     * {@code (*)}: report the step as waiting as soon as it is launched, whether or not the server
     * is seen to block it, for steps that would otherwise sometimes finish before anyone looked.
     */
    record Once() implements Blocker {
        @Override
        public String toString() {
            return "*";
        }
    }

    /**
     * {@code (other)}: the step may not be reported complete while {@code step} (of another
     * session) is still running.
     */
    record AfterStep(Step step) implements Blocker {
        @Override
        public String toString() {
            return step.name();
        }
    }

    /**
     * {@code (other notices n)}: the step may not be reported complete before {@code step}'s
     * session has sent {@code count} notices more than it had when this step was launched.
     */
    record AfterNotices(Step step, int count) implements Blocker {
        @Override
        public String toString() {
            return step.name() + " notices " + count;
        }
    }
}
