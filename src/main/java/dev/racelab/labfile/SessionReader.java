package dev.racelab.labfile;

import dev.racelab.isolation.SpecException;
import dev.racelab.isolation.SpecScanner.Kind;
import dev.racelab.isolation.SpecScanner.Token;
import dev.racelab.labfile.LabFile.Block;
import dev.racelab.labfile.LabFile.Gate;
import dev.racelab.labfile.LabFile.Item;
import dev.racelab.labfile.LabFile.LabSession;
import dev.racelab.labfile.LabFile.LabStep;
import dev.racelab.labfile.LabFile.Let;
import dev.racelab.labfile.LabFile.Test;
import dev.racelab.labfile.LabFile.Until;
import dev.racelab.labfile.LabFile.When;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads one session of a lab file: its workers and operations, its setup, its steps, gates and
 * {@code let}s in order, its teardown. A value is known from the item that captures or computes
 * it to the end of the session; a retry goes back to the step itself or to an earlier one.
 */
final class SessionReader {

    private final LabTokens t;
    /** Every step of the file so far, by name: step names are unique across the file, as in a spec. */
    private final Map<String, Token> stepNames;
    private final Set<String> values = new HashSet<>(LabReader.BUILT_IN);
    private final List<Item> items = new ArrayList<>();
    /** Under which variants each value is there by now: built-ins in all, a captured one where its step ran. */
    private final Map<String, BitSet> there = new HashMap<>();
    /** Which switches decided where each value is there: a message names only those. */
    private final Map<String, Set<String>> decidedBy = new HashMap<>();
    private final Variants variants;

    SessionReader(LabTokens tokens, Map<String, Token> stepNames) {
        this.t = tokens;
        this.stepNames = stepNames;
        this.variants = new Variants(List.copyOf(tokens.switches.values()));
        LabReader.BUILT_IN.forEach(v -> there.put(v, variants.all()));
    }

    LabSession session(Set<String> sessionNames) throws SpecException {
        t.advance();
        Token name = t.name("the session's name after 'session'");
        if (!sessionNames.add(name.text())) {
            throw t.error(name, "session " + name.text() + " is defined twice");
        }
        int workers = 1;
        int ops = 1;
        if (t.token.is("workers")) {
            t.labOnly(t.advance());
            workers = t.integer("the number of workers", LabReader.MOST_WORKERS);
        }
        if (t.token.is("ops")) {
            t.labOnly(t.advance());
            ops = t.integer("the number of operations", LabReader.MOST_OPS);
        }
        Block setup = null;
        if (t.token.kind() == Kind.SETUP) {
            t.advance();
            setup = t.underSwitch(t.checked(t.server(), "the setup of session " + name.text(),
                    Set.of("run", "worker")));
        }
        Set<String> gates = new HashSet<>();
        while (t.token.kind() == Kind.STEP || t.token.is("gate") || t.token.is("let")) {
            if (t.token.kind() == Kind.STEP) {
                items.add(step());
            } else if (t.token.is("let")) {
                items.add(let());
            } else {
                t.labOnly(t.advance());
                Token gate = t.settingName("the gate's name after 'gate'");
                if (!gates.add(gate.text())) {
                    throw t.error(gate, "session " + name.text() + " has gate " + gate.text() + " twice");
                }
                items.add(gate(gate, workers));
            }
        }
        if (items.stream().noneMatch(LabStep.class::isInstance)) {
            throw t.error(t.token, "session " + name.text() + " has no step: expected 'step NAME { … }', found "
                    + t.token.describe());
        }
        if (t.token.kind() == Kind.SETUP) {
            throw t.error(t.token, "the setup of session " + name.text() + " comes before its steps");
        }
        Block teardown = null;
        if (t.token.kind() == Kind.TEARDOWN) {
            t.advance();
            teardown = t.underSwitch(t.checked(t.server(), "the teardown of session " + name.text(),
                    Set.of("run", "worker")));
        }
        return new LabSession(name.text(), workers, ops, setup, items, teardown);
    }

    /** {@code name}, unless it is one of the values RaceLab gives every step ($worker, $op, $run). */
    private Token ownValue(Token name) throws SpecException {
        if (LabReader.BUILT_IN.contains(name.text())) {
            throw t.error(name, "$" + name.text() + " is RaceLab's own value: call this one something else");
        }
        return name;
    }

    /** After {@code gate NAME}: {@code [crash] [delay MS[-MS]] [worker N]}, in a session of {@code workers} workers. */
    private Gate gate(Token name, int workers) throws SpecException {
        String delay = null;
        int worker = 0;
        boolean crash = t.token.is("crash");
        if (crash) {
            t.advance();
        }
        if (t.token.is("delay")) {
            t.advance();
            delay = String.valueOf(t.integer("the delay in milliseconds", LabReader.MOST_DELAY_MS, 0));
            if (t.token.kind() == Kind.SIGN && t.token.text().equals("-")) {
                t.advance();
                delay += "-" + t.integer("the longest delay in milliseconds", LabReader.MOST_DELAY_MS,
                        Integer.parseInt(delay));
            }
        }
        if (t.token.is("worker")) {
            t.advance();
            worker = t.integer("the worker's number", workers);
        }
        Boolean before = t.crashGates.putIfAbsent(name.text(), crash);
        if (before != null && before != crash) {
            throw t.error(name, "gate " + name.text() + " is " + (before ? "a crash gate" : "a plain gate")
                    + " in another session: a gate is of one kind in every session");
        }
        return new Gate(name.text(), name.line(), delay, worker, crash);
    }

    /** {@code let NAME = EXPRESSION}: a value computed from numbers and earlier values. */
    private Let let() throws SpecException {
        t.labOnly(t.advance());
        Token name = ownValue(t.ownName("the value's name after 'let'"));
        if (t.token.kind() != Kind.SIGN || !t.token.text().equals("=")) {
            throw t.error(t.token, "expected '=' after 'let " + name.text() + "', found " + t.token.describe());
        }
        t.advance();
        List<String> expression = t.expression(values, false);
        BitSet where = variants.all();
        Set<String> switches = new HashSet<>();
        for (String term : expression) {
            if (term.startsWith("$")) {
                where.and(there.get(term.substring(1)));
                switches.addAll(decidedBy.getOrDefault(term.substring(1), Set.of()));
            }
        }
        values.add(name.text());
        there.put(name.text(), where);
        decidedBy.put(name.text(), switches);
        return new Let(name.text(), expression, name.line());
    }

    private LabStep step() throws SpecException {
        t.advance();
        Token name = t.name("the step's name after 'step'");
        Token earlier = stepNames.putIfAbsent(name.text(), name);
        if (earlier != null) {
            throw t.error(name, "step " + name.text() + " is defined twice (first on line " + earlier.line()
                    + "): step names are unique across the file");
        }
        LabFile.Server server = t.server();
        Token brace = t.token;
        Block block = t.block("step " + name.text(), server);
        List<SqlValues.Use> uses = t.blocks.uses(brace, block);
        if (!uses.isEmpty()) {
            t.labOnly(brace);
        }
        String capture = null;
        When when = null;
        Until until = null;
        while (t.token.is("capture") || t.token.is("when") || t.token.is("until")) {
            Token option = t.advance();
            t.labOnly(option);
            if (option.is("capture")) {
                if (capture != null) {
                    throw t.error(option, "step " + name.text() + " captures a value already");
                }
                capture = ownValue(t.ownName("the value's name after 'capture'")).text();
            } else if (option.is("when")) {
                if (when != null) {
                    throw t.error(option, "step " + name.text() + " has a 'when' already");
                }
                when = t.when();
            } else {
                if (until != null) {
                    throw t.error(option, "step " + name.text() + " has an 'until' already");
                }
                until = until(name.text());
            }
        }
        BitSet runs = variants.where(when);
        for (SqlValues.Use use : uses) {
            checkThere(use, name.text(), runs, when);
        }
        if (capture != null) {
            values.add(capture);
            there.computeIfAbsent(capture, c -> new BitSet()).or(runs);
            Set<String> switches = decidedBy.computeIfAbsent(capture, c -> new HashSet<>());
            if (when != null) {
                switches.add(when.switchName());
            }
        }
        return new LabStep(name.text(), block, capture, when, until);
    }

    /** Refuses {@code use} in step {@code step} if some variant it {@code runs} under has no such value by then. */
    private void checkThere(SqlValues.Use use, String step, BitSet runs, When when) throws SpecException {
        BitSet where = there.get(use.name());
        if (where == null) {
            throw t.blocks.at(use.offset(), "step " + step + " uses $" + use.name()
                    + ", which no earlier step of its session captures (capture " + use.name() + ")");
        }
        BitSet missing = (BitSet) runs.clone();
        missing.andNot(where);
        if (!missing.isEmpty()) {
            Set<String> switches = new HashSet<>(decidedBy.getOrDefault(use.name(), Set.of()));
            if (when != null) {
                switches.add(when.switchName());
            }
            throw t.blocks.at(use.offset(), "step " + step + " uses $" + use.name() + ", which no earlier step "
                    + "captures when " + variants.describe(missing.nextSetBit(0), switches));
        }
    }

    /** {@code until TEST max N [every MS] [from STEP]}, after step {@code step}'s other options. */
    private Until until(String step) throws SpecException {
        Test test = t.test(values, false);
        if (!t.token.is("max")) {
            throw t.error(t.token, "expected 'max' and the most tries after the test of 'until', found "
                    + t.token.describe());
        }
        t.advance();
        int max = t.integer("the most tries", LabReader.MOST_TRIES);
        int every = 0;
        if (t.token.is("every")) {
            t.advance();
            every = t.integer("the pause between tries in milliseconds", LabReader.MOST_DELAY_MS);
        }
        String from = step;
        if (t.token.is("from")) {
            t.advance();
            Token back = t.name("the step to go back to after 'from'");
            boolean earlier = items.stream().anyMatch(i -> i instanceof LabStep s && s.name().equals(back.text()));
            if (!earlier && !back.text().equals(step)) {
                throw t.error(back, "a retry goes back to this step or an earlier one of its session, and "
                        + back.text() + " is neither");
            }
            from = back.text();
        }
        return new Until(test, max, every, from);
    }
}
