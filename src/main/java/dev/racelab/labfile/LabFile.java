package dev.racelab.labfile;

import dev.racelab.isolation.Spec;

import java.util.ArrayList;
import java.util.List;

/**
 * A lab file as {@link LabReader} read and checked it ({@code docs/lab-format.md}): setup and
 * teardown on either server, switches, sessions of workers doing steps with gates between them,
 * and the invariants whose names are the verdicts.
 *
 * @param name       the file's name without {@code .lab} or {@code .spec}
 * @param title      the title, or the name when the file gives none
 * @param story      the story, or empty
 * @param spec       the isolation spec the file is, when it uses nothing a spec lacks; else null
 * @param walkthrough the file's own walkthrough, in the walkthrough format, or null
 */
public record LabFile(String name, String title, String story, List<Block> setup, List<Block> teardown,
                      List<Choice> switches, List<LabSession> sessions, List<Invariant> invariants, Spec spec,
                      WalkthroughText walkthrough) {

    /** A walkthrough's lines as the file holds them ({@code docs/walkthrough-format.md}), from line {@code line} on. */
    public record WalkthroughText(String text, int line) {
    }

    public LabFile {
        setup = List.copyOf(setup);
        teardown = List.copyOf(teardown);
        switches = List.copyOf(switches);
        sessions = List.copyOf(sessions);
        invariants = List.copyOf(invariants);
    }

    /** Every block of the file: setup, teardown, each session's, each step's, each invariant's. */
    public List<Block> blocks() {
        List<Block> all = new ArrayList<>(setup);
        all.addAll(teardown);
        for (LabSession session : sessions) {
            java.util.stream.Stream.of(session.setup(), session.teardown()).filter(java.util.Objects::nonNull)
                    .forEach(all::add);
            session.steps().forEach(step -> all.add(step.block()));
        }
        invariants.forEach(invariant -> all.add(invariant.block()));
        return all;
    }

    /** Which server a block is for. */
    public enum Server {
        PG("pg"), REDIS("redis");

        private final String word;

        Server(String word) {
            this.word = word;
        }

        /** How a lab file writes it. */
        public String word() {
            return word;
        }
    }

    /** A { … } block for one server, the line it starts on, and the switch choice it runs under (null: always). */
    public record Block(Server server, String text, int line, When when) {
        /** The same block, run only under {@code under}. */
        public Block when(When under) {
            return new Block(server, text, line, under);
        }
    }

    /** A switch: its name and choices, the first the default. */
    public record Choice(String name, List<String> choices) {
        public Choice {
            choices = List.copyOf(choices);
        }

        public String byDefault() {
            return choices.get(0);
        }
    }

    /** A session: {@code workers} workers, each doing {@code items} {@code ops} times. */
    public record LabSession(String name, int workers, int ops, Block setup, List<Item> items, Block teardown) {
        public LabSession {
            items = List.copyOf(items);
        }

        /** The session's steps, in order. */
        public List<LabStep> steps() {
            List<LabStep> steps = new ArrayList<>();
            items.forEach(item -> {
                if (item instanceof LabStep step) {
                    steps.add(step);
                }
            });
            return steps;
        }

        /** The session's gates, in order. */
        public List<String> gates() {
            return items.stream().filter(Gate.class::isInstance).map(item -> ((Gate) item).name()).toList();
        }
    }

    /** What a session does in order: a step, a gate, or a value computed. */
    public sealed interface Item permits LabStep, Gate, Let {
    }

    /** {@code let NAME = EXPRESSION}: a value computed from numbers and earlier values ({@code $n + 1}). */
    public record Let(String name, List<String> expression, int line) implements Item {
        public Let {
            expression = List.copyOf(expression);
        }
    }

    /**
     * A named place between steps where a worker can be delayed, held or stepped; {@code delay}
     * the delay a run starts with ({@code 300}, {@code 0-20} ms; null: none), for worker number
     * {@code worker} only (0: every worker).
     */
    /**
     * A gate: its delay at the start ({@code 20}, {@code 0-20}, or null), the worker it is for (0:
     * all), and whether it is a fault gate where an armed worker crashes ({@code crash}).
     */
    public record Gate(String name, int line, String delay, int worker, boolean crash) implements Item {
    }

    /**
     * A step: its block, the value it keeps ({@code capture}, or null), the switch choice it runs
     * under (or null: always), and how it is retried (or null: once).
     */
    public record LabStep(String name, Block block, String capture, When when, Until until) implements Item {
    }

    /** {@code when SWITCH = CHOICE}, or with {@code !=} when {@code equal} is false. */
    public record When(String switchName, String choice, boolean equal) {
        /** Whether the step runs when the switch has {@code chosen}. */
        public boolean runsWith(String chosen) {
            return choice.equals(chosen) == equal;
        }
    }

    /**
     * {@code until TEST max N [every MS] [from STEP]}: until its value meets the test, the worker
     * waits {@code everyMillis} (0: not at all), goes back to step {@code from} (this step, unless
     * the file names an earlier one) and on again, at most {@code max} times in all.
     */
    public record Until(Test test, int max, int everyMillis, String from) {
    }

    /** An invariant: a block whose value must meet {@code test} after the run; {@code verdict} names its failure. */
    public record Invariant(String verdict, Block block, Test test) {
    }

    /**
     * A test of a value: a sign and an expression ({@code = operations}), or whether it is null
     * ({@code sign} "null" or "not null", {@code expression} empty).
     */
    public record Test(String sign, List<String> expression) {
        public Test {
            expression = List.copyOf(expression);
        }

        /** As written: {@code = workers * ops}. */
        @Override
        public String toString() {
            return expression.isEmpty() ? sign : sign + " " + String.join(" ", expression);
        }
    }
}
