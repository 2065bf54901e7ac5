package dev.racelab.labfile;

import dev.racelab.isolation.SpecException;
import dev.racelab.isolation.SpecReader;
import dev.racelab.isolation.SpecScanner;
import dev.racelab.isolation.SpecScanner.Kind;
import dev.racelab.isolation.SpecScanner.Token;
import dev.racelab.labfile.LabFile.Block;
import dev.racelab.labfile.LabFile.Choice;
import dev.racelab.labfile.LabFile.Gate;
import dev.racelab.labfile.LabFile.Invariant;
import dev.racelab.labfile.LabFile.Item;
import dev.racelab.labfile.LabFile.LabSession;
import dev.racelab.labfile.LabFile.LabStep;
import dev.racelab.labfile.LabFile.Server;
import dev.racelab.labfile.LabFile.Test;
import dev.racelab.labfile.LabFile.Until;
import dev.racelab.labfile.LabFile.When;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a lab file ({@code docs/lab-format.md}): PostgreSQL's isolation spec grammar, with the
 * words a lab file adds recognised only where a spec has no word, so every spec reads as a lab
 * file. Then it checks what the grammar alone cannot: names defined once, switches and choices
 * that exist, values captured before they are used, Redis keys under {@code racelab:}, bounds on
 * numbers. The first problem is thrown as a {@link SpecException} naming the line and column,
 * before anything touches a server. A file that uses nothing a spec lacks is also read as the
 * spec it is ({@link LabFile#spec}), permutations and all.
 */
public final class LabReader {

    static final int MOST_WORKERS = 1_000;
    static final int MOST_OPS = 1_000_000;
    static final int MOST_TRIES = 100_000;
    /** Values every step may use, beside those its session captures. */
    static final Set<String> BUILT_IN = Set.of("worker", "op", "run");
    /** The format's own words, which a value or a gate is not called (they would read as the next item). */
    private static final Set<String> WORDS = Set.of("title", "story", "switch", "gate", "capture", "when", "until",
            "max", "invariant", "pg", "redis", "workers", "ops", "null", "not");
    /** Words an invariant's expression may use, beside numbers and {@code $run}. */
    private static final Set<String> TOTALS = Set.of("workers", "operations");

    private LabReader() {
    }

    /** Reads the file at {@code path}; the lab's name is the file's without {@code .lab} or {@code .spec}. */
    public static LabFile read(Path path) throws IOException, SpecException {
        String fileName = path.getFileName().toString();
        String name = fileName.replaceFirst("\\.(lab|spec)$", "");
        return read(name, path.toString(), Files.readString(path, StandardCharsets.UTF_8));
    }

    /** Reads {@code text}, a lab called {@code name} found in {@code file} (for messages). */
    public static LabFile read(String name, String file, String text) throws SpecException {
        Parser parser = new Parser(file, text);
        LabFile lab = parser.lab(name);
        if (parser.labOnly != null) {
            return lab;
        }
        // Nothing a spec lacks: it is a spec, read as one (its permutations, isolationtester's checks).
        return new LabFile(lab.name(), lab.title(), lab.story(), lab.setup(), lab.teardown(), lab.switches(),
                lab.sessions(), lab.invariants(), SpecReader.read(name, file, text));
    }

    private static final class Parser {

        private final String file;
        private final SpecScanner scanner;
        private final BlockCheck blocks;
        private Token token;
        /** The first thing the file uses that a spec lacks, or null. */
        private Token labOnly;
        private final Map<String, Choice> switches = new LinkedHashMap<>();
        private final Map<String, Token> stepNames = new HashMap<>();

        Parser(String file, String text) {
            this.file = file;
            this.scanner = new SpecScanner(file, text, true);
            this.blocks = new BlockCheck(file, text);
        }

        private SpecException error(Token at, String problem) {
            return new SpecException(file, at.line(), at.column(), problem);
        }

        private Token advance() throws SpecException {
            Token current = token;
            token = scanner.next();
            return current;
        }

        /** Notes that the file uses {@code at}, which a spec lacks. */
        private void labOnly(Token at) {
            if (labOnly == null) {
                labOnly = at;
            }
        }

        LabFile lab(String name) throws SpecException {
            advance();
            if (token.kind() == Kind.END) {
                throw error(token, "the lab file is empty: it needs at least one session "
                        + "(session NAME, then step NAME { … })");
            }
            String title = null;
            String story = "";
            while (token.is("title") || token.is("story")) {
                Token word = advance();
                labOnly(word);
                if (word.is("title")) {
                    if (title != null) {
                        throw error(word, "the file has a title already");
                    }
                    title = name("the title after 'title' (quote it: title \"Lost increment\")").text();
                } else {
                    story = block("the story", Server.PG).text();
                }
            }
            List<Block> setup = new ArrayList<>();
            while (token.kind() == Kind.SETUP) {
                advance();
                setup.add(checked(server(), "the setup", Set.of("run")));
            }
            List<Block> teardown = new ArrayList<>();
            while (token.kind() == Kind.TEARDOWN) {
                Token word = advance();
                if (!teardown.isEmpty()) {
                    labOnly(word);
                }
                teardown.add(checked(server(), "the teardown", Set.of("run")));
                if (token.kind() == Kind.SETUP) {
                    throw error(token, "setup blocks come before the teardown blocks");
                }
            }
            while (token.is("switch")) {
                labOnly(token);
                choice();
            }
            List<LabSession> sessions = new ArrayList<>();
            Set<String> sessionNames = new HashSet<>();
            while (token.kind() == Kind.SESSION) {
                LabSession session = session(sessionNames);
                sessions.add(session);
            }
            if (sessions.isEmpty()) {
                throw error(token, misplaced("expected 'session' here, found " + token.describe()
                        + (token.kind() == Kind.END ? ": a lab needs at least one session" : "")));
            }
            Token permutation = token.kind() == Kind.PERMUTATION ? token : null;
            while (token.kind() == Kind.PERMUTATION) {
                skipPermutation();
            }
            List<Invariant> invariants = new ArrayList<>();
            Set<String> verdicts = new HashSet<>();
            while (token.is("invariant")) {
                labOnly(token);
                Invariant invariant = invariant();
                if (!verdicts.add(invariant.verdict())) {
                    throw error(token, "two invariants are called \"" + invariant.verdict() + "\"");
                }
                invariants.add(invariant);
            }
            if (token.kind() != Kind.END) {
                throw error(token, misplaced(switch (token.kind()) {
                    case SESSION -> "sessions come before the permutation lines and the invariants";
                    case STEP -> "a step belongs in a session, before its teardown";
                    case PERMUTATION -> "permutation lines come before the invariants";
                    default -> "expected 'invariant' or the end of the file, found " + token.describe();
                }));
            }
            if (labOnly != null && permutation != null) {
                throw error(permutation, "permutation lines belong to isolation specs: a lab file that uses "
                        + labOnly.describe() + " (line " + labOnly.line() + ") is scheduled by its gates");
            }
            if (labOnly != null && invariants.isEmpty()) {
                throw error(token, "a lab file needs an invariant, whose name is the verdict when it fails: "
                        + "invariant \"lost increment\" pg { SELECT n FROM counter } = operations");
            }
            return new LabFile(name, title == null ? name : title, story, setup, teardown,
                    List.copyOf(switches.values()), sessions, invariants, null);
        }

        /** A message for a lab file's word found where it does not belong, or {@code otherwise}. */
        private String misplaced(String otherwise) {
            if (token.is("title") || token.is("story")) {
                return "the title and the story come first, before the setup";
            }
            if (token.is("switch")) {
                return "switches come after the setup and teardown, before the sessions";
            }
            if (token.is("invariant")) {
                return "invariants come last, after the sessions";
            }
            if (token.is("gate")) {
                return "a gate belongs in a session, between its steps";
            }
            return otherwise;
        }

        private Token name(String what) throws SpecException {
            if (token.kind() != Kind.NAME) {
                String found = token.describe();
                if (token.kind().keyword()) {
                    found += " (a keyword: quote it to use it as a name)";
                }
                throw error(token, "expected " + what + ", found " + found);
            }
            return advance();
        }

        /** A name for something only lab files have: not one of the format's words. */
        private Token ownName(String what) throws SpecException {
            if (token.kind() == Kind.NAME && WORDS.contains(token.text())) {
                throw error(token, "expected " + what + ", found '" + token.text() + "', a word of the lab format");
            }
            return name(what);
        }

        private int integer(String what, int most) throws SpecException {
            if (token.kind() != Kind.INTEGER) {
                throw error(token, "expected " + what + ", a number, found " + token.describe());
            }
            Token number = advance();
            long n;
            try {
                n = Long.parseLong(number.text());
            } catch (NumberFormatException e) {
                n = Long.MAX_VALUE;
            }
            if (n < 1 || n > most) {
                throw error(number, what + " must be from 1 to " + most + ", not " + number.text());
            }
            return (int) n;
        }

        /** {@code pg}, {@code redis}, or nothing (PostgreSQL). */
        private Server server() throws SpecException {
            for (Server server : Server.values()) {
                if (token.is(server.word())) {
                    labOnly(advance());
                    return server;
                }
            }
            return Server.PG;
        }

        private Block block(String what, Server server) throws SpecException {
            if (token.kind() != Kind.SQL) {
                throw error(token, "expected '{' to begin " + what + ", found " + token.describe());
            }
            Token at = advance();
            return new Block(server, at.text(), at.line());
        }

        /** A block for {@code server}, its Redis commands and values checked; {@code values} it may use. */
        private Block checked(Server server, String what, Set<String> values) throws SpecException {
            Token at = token;
            Block block = block(what, server);
            if (blocks.check(at, block, what, values)) {
                labOnly(at);
            }
            return block;
        }

        private void choice() throws SpecException {
            advance();
            Token name = name("the switch's name after 'switch'");
            if (switches.containsKey(name.text())) {
                throw error(name, "switch " + name.text() + " is defined twice");
            }
            if (token.kind() != Kind.LEFT) {
                throw error(token, "expected '(' and the choices of switch " + name.text() + ", found "
                        + token.describe());
            }
            advance();
            List<String> choices = new ArrayList<>();
            do {
                if (!choices.isEmpty()) {
                    advance();
                }
                Token choice = name("a choice of switch " + name.text());
                if (choices.contains(choice.text())) {
                    throw error(choice, "switch " + name.text() + " has choice " + choice.text() + " twice");
                }
                choices.add(choice.text());
            } while (token.kind() == Kind.COMMA);
            if (token.kind() != Kind.RIGHT) {
                throw error(token, "expected ',' or ')' in the choices of switch " + name.text() + ", found "
                        + token.describe());
            }
            advance();
            switches.put(name.text(), new Choice(name.text(), choices));
        }

        private LabSession session(Set<String> sessionNames) throws SpecException {
            advance();
            Token name = name("the session's name after 'session'");
            if (!sessionNames.add(name.text())) {
                throw error(name, "session " + name.text() + " is defined twice");
            }
            int workers = 1;
            int ops = 1;
            if (token.is("workers")) {
                labOnly(advance());
                workers = integer("the number of workers", MOST_WORKERS);
            }
            if (token.is("ops")) {
                labOnly(advance());
                ops = integer("the number of operations", MOST_OPS);
            }
            Set<String> values = new HashSet<>(BUILT_IN);
            Block setup = null;
            if (token.kind() == Kind.SETUP) {
                advance();
                setup = checked(server(), "the setup of session " + name.text(), Set.of("run", "worker"));
            }
            List<Item> items = new ArrayList<>();
            Set<String> gates = new HashSet<>();
            while (token.kind() == Kind.STEP || token.is("gate")) {
                if (token.kind() == Kind.STEP) {
                    items.add(step(values));
                } else {
                    labOnly(advance());
                    Token gate = ownName("the gate's name after 'gate'");
                    if (!gates.add(gate.text())) {
                        throw error(gate, "session " + name.text() + " has gate " + gate.text() + " twice");
                    }
                    items.add(new Gate(gate.text(), gate.line()));
                }
            }
            if (items.stream().noneMatch(LabStep.class::isInstance)) {
                throw error(token, "session " + name.text() + " has no step: expected 'step NAME { … }', found "
                        + token.describe());
            }
            if (token.kind() == Kind.SETUP) {
                throw error(token, "the setup of session " + name.text() + " comes before its steps");
            }
            Block teardown = null;
            if (token.kind() == Kind.TEARDOWN) {
                advance();
                teardown = checked(server(), "the teardown of session " + name.text(), Set.of("run", "worker"));
            }
            return new LabSession(name.text(), workers, ops, setup, items, teardown);
        }

        private LabStep step(Set<String> values) throws SpecException {
            advance();
            Token name = name("the step's name after 'step'");
            Token earlier = stepNames.putIfAbsent(name.text(), name);
            if (earlier != null) {
                throw error(name, "step " + name.text() + " is defined twice (first on line " + earlier.line()
                        + "): step names are unique across the file");
            }
            Block block = checked(server(), "step " + name.text(), values);
            String capture = null;
            When when = null;
            Until until = null;
            while (token.is("capture") || token.is("when") || token.is("until")) {
                Token option = advance();
                labOnly(option);
                if (option.is("capture")) {
                    if (capture != null) {
                        throw error(option, "step " + name.text() + " captures a value already");
                    }
                    capture = ownName("the value's name after 'capture'").text();
                } else if (option.is("when")) {
                    if (when != null) {
                        throw error(option, "step " + name.text() + " has a 'when' already");
                    }
                    when = when();
                } else {
                    if (until != null) {
                        throw error(option, "step " + name.text() + " has an 'until' already");
                    }
                    Test test = test(values, false);
                    if (!token.is("max")) {
                        throw error(token, "expected 'max' and the most tries after the test of 'until', found "
                                + token.describe());
                    }
                    advance();
                    until = new Until(test, integer("the most tries", MOST_TRIES));
                }
            }
            if (capture != null) {
                values.add(capture);
            }
            return new LabStep(name.text(), block, capture, when, until);
        }

        private When when() throws SpecException {
            Token switchName = name("a switch's name after 'when'");
            Choice choice = switches.get(switchName.text());
            if (choice == null) {
                throw error(switchName, "no switch is called " + switchName.text()
                        + (switches.isEmpty() ? ": define it first, switch NAME (CHOICE, …)" : ": the switches are "
                        + switches.keySet()));
            }
            if (token.kind() != Kind.SIGN || !(token.text().equals("=") || token.text().equals("!="))) {
                throw error(token, "expected '=' or '!=' after 'when " + switchName.text() + "', found "
                        + token.describe());
            }
            boolean equal = advance().text().equals("=");
            Token chosen = name("a choice of switch " + switchName.text());
            if (!choice.choices().contains(chosen.text())) {
                throw error(chosen, "switch " + switchName.text() + " has no choice " + chosen.text() + ": its choices are "
                        + choice.choices());
            }
            return new When(switchName.text(), chosen.text(), equal);
        }

        private Invariant invariant() throws SpecException {
            advance();
            Token verdict = name("the invariant's name, its verdict when it fails, after 'invariant'");
            Block block = checked(server(), "invariant " + verdict.text(), Set.of("run"));
            return new Invariant(verdict.text(), block, test(Set.of("run"), true));
        }

        /** {@code null}, {@code not null}, or a sign and an expression; {@code totals}: an invariant's. */
        private Test test(Set<String> values, boolean totals) throws SpecException {
            if (token.is("null")) {
                advance();
                return new Test("null", List.of());
            }
            if (token.is("not")) {
                advance();
                if (!token.is("null")) {
                    throw error(token, "expected 'null' after 'not', found " + token.describe());
                }
                advance();
                return new Test("not null", List.of());
            }
            if (token.kind() != Kind.SIGN || token.text().equals("+") || token.text().equals("-")) {
                throw error(token, "expected a test: = != < <= > >= and a value, or null, or not null; found "
                        + token.describe());
            }
            String sign = advance().text();
            List<String> expression = new ArrayList<>();
            expression.add(term(values, totals));
            while (token.kind() == Kind.STAR || (token.kind() == Kind.SIGN
                    && (token.text().equals("+") || token.text().equals("-")))) {
                expression.add(token.kind() == Kind.STAR ? "*" : token.text());
                advance();
                expression.add(term(values, totals));
            }
            return new Test(sign, expression);
        }

        private String term(Set<String> values, boolean totals) throws SpecException {
            switch (token.kind()) {
                case INTEGER -> {
                    return advance().text();
                }
                case VALUE -> {
                    if (!values.contains(token.text())) {
                        throw error(token, "$" + token.text() + " is not a value here: " + values.stream()
                                .map(v -> "$" + v).sorted().toList());
                    }
                    return "$" + advance().text();
                }
                case NAME -> {
                    if (totals && !TOTALS.contains(token.text())) {
                        throw error(token, "an invariant compares with numbers, workers, operations or $run, not "
                                + token.describe());
                    }
                    return advance().text();
                }
                default -> throw error(token, "expected a value to compare with, found " + token.describe());
            }
        }

        /** Past one permutation line: {@link SpecReader} reads it when the file is a spec. */
        private void skipPermutation() throws SpecException {
            advance();
            while (token.kind() == Kind.NAME || token.kind() == Kind.LEFT || token.kind() == Kind.RIGHT
                    || token.kind() == Kind.COMMA || token.kind() == Kind.STAR || token.kind() == Kind.NOTICES
                    || token.kind() == Kind.INTEGER) {
                if (token.is("invariant")) {
                    return;
                }
                advance();
            }
        }
    }
}
