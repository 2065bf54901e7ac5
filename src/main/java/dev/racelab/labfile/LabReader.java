package dev.racelab.labfile;

import dev.racelab.isolation.SpecException;
import dev.racelab.isolation.SpecReader;
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
    static final int MOST_DELAY_MS = 600_000;
    /** Values every step may use, beside those its session captures. */
    static final Set<String> BUILT_IN = Set.of("worker", "op", "run");
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
                lab.sessions(), lab.invariants(), SpecReader.read(name, file, text), null);
    }

    /** The file's structure; sessions are {@link SessionReader}'s. */
    private static final class Parser extends LabTokens {

        private final Map<String, Token> stepNames = new HashMap<>();

        Parser(String file, String text) {
            super(file, text);
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
                    if (!story.isEmpty()) {
                        throw error(word, "the file has a story already");
                    }
                    story = block("the story", Server.PG).text();
                }
            }
            while (token.is("switch")) {
                labOnly(token);
                choice();
            }
            List<Block> setup = new ArrayList<>();
            while (token.kind() == Kind.SETUP) {
                advance();
                setup.add(underSwitch(checked(server(), "the setup", Set.of("run"))));
            }
            List<Block> teardown = new ArrayList<>();
            while (token.kind() == Kind.TEARDOWN) {
                Token word = advance();
                if (!teardown.isEmpty()) {
                    labOnly(word);
                }
                teardown.add(underSwitch(checked(server(), "the teardown", Set.of("run"))));
                if (token.kind() == Kind.SETUP) {
                    throw error(token, "setup blocks come before the teardown blocks");
                }
            }
            List<LabSession> sessions = new ArrayList<>();
            Set<String> sessionNames = new HashSet<>();
            while (token.kind() == Kind.SESSION) {
                LabSession session = new SessionReader(this, stepNames).session(sessionNames);
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
                Token at = token;
                labOnly(at);
                Invariant invariant = invariant();
                if (!verdicts.add(invariant.verdict())) {
                    throw error(at, "two invariants are called \"" + invariant.verdict() + "\"");
                }
                invariants.add(invariant);
            }
            LabFile.WalkthroughText walkthrough = null;
            if (token.is("walkthrough")) {
                labOnly(advance());
                Block lines = block("the walkthrough", Server.PG);
                walkthrough = new LabFile.WalkthroughText(lines.text(), lines.line());
            }
            if (token.kind() != Kind.END) {
                throw error(token, misplaced(switch (token.kind()) {
                    case SESSION -> "sessions come before the permutation lines and the invariants";
                    case STEP -> "a step belongs in a session, before its teardown";
                    case PERMUTATION -> "permutation lines come before the invariants";
                    default -> "expected 'invariant', 'walkthrough' or the end of the file, found " + token.describe();
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
                    List.copyOf(switches.values()), sessions, invariants, null, walkthrough);
        }

        /** A message for a lab file's word found where it does not belong, or {@code otherwise}. */
        private String misplaced(String otherwise) {
            if (token.is("title") || token.is("story")) {
                return "the title and the story come first, before the switches and the setup";
            }
            if (token.is("switch")) {
                return "switches come after the title and story, before the setup";
            }
            if (token.is("invariant")) {
                return "invariants come after the sessions, before the walkthrough";
            }
            if (token.is("gate")) {
                return "a gate belongs in a session, between its steps";
            }
            return otherwise;
        }

        private void choice() throws SpecException {
            advance();
            Token name = settingName("the switch's name after 'switch'");
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
                Token choice = settingName("a choice of switch " + name.text());
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

        private Invariant invariant() throws SpecException {
            advance();
            Token verdict = name("the invariant's name, its verdict when it fails, after 'invariant'");
            Block block = checked(server(), "invariant " + verdict.text(), Set.of("run"));
            return new Invariant(verdict.text(), block, test(Set.of("run"), true));
        }

        /**
         * Whether the current token begins an invariant ({@code invariant NAME [pg|redis] {}), not a
         * step called {@code invariant} in a permutation line.
         */
        private boolean startsInvariant() throws SpecException {
            if (!token.is("invariant") || peek(1).kind() != Kind.NAME) {
                return false;
            }
            Token after = peek(2);
            return after.kind() == Kind.SQL || ((after.is("pg") || after.is("redis")) && peek(3).kind() == Kind.SQL);
        }

        /** Past one permutation line: {@link SpecReader} reads it when the file is a spec. */
        private void skipPermutation() throws SpecException {
            advance();
            while (token.kind() == Kind.NAME || token.kind() == Kind.LEFT || token.kind() == Kind.RIGHT
                    || token.kind() == Kind.COMMA || token.kind() == Kind.STAR || token.kind() == Kind.NOTICES
                    || token.kind() == Kind.INTEGER) {
                if (startsInvariant()) {
                    return;
                }
                advance();
            }
        }
    }
}
