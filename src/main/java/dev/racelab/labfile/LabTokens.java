package dev.racelab.labfile;

import dev.racelab.isolation.SpecException;
import dev.racelab.isolation.SpecScanner;
import dev.racelab.isolation.SpecScanner.Kind;
import dev.racelab.isolation.SpecScanner.Token;
import dev.racelab.labfile.LabFile.Block;
import dev.racelab.labfile.LabFile.Choice;
import dev.racelab.labfile.LabFile.Server;
import dev.racelab.labfile.LabFile.Test;
import dev.racelab.labfile.LabFile.When;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tokens of one lab file as {@link LabReader} and {@link SessionReader} take them, and what
 * both expect of them: names, numbers, blocks (checked), tests and expressions. It notes the first
 * thing the file uses that an isolation spec lacks ({@link #labOnly}).
 */
class LabTokens {

    /** The format's own words, which a value or a gate is not called (they would read as the next item). */
    static final Set<String> WORDS = Set.of("title", "story", "switch", "gate", "let", "capture", "when", "until",
            "max", "every", "from", "delay", "crash", "worker", "invariant", "pg", "redis", "workers", "ops", "null", "not");
    /** Words an invariant's expression may use, beside numbers and {@code $run}. */
    private static final Set<String> TOTALS = Set.of("workers", "operations");

    private final String file;
    private final SpecScanner scanner;
    final BlockCheck blocks;
    /** The current token. */
    Token token;
    /** Tokens read ahead of the current one ({@link #peek}). */
    private final java.util.LinkedList<Token> ahead = new java.util.LinkedList<>();
    /** The first thing the file uses that a spec lacks, or null. */
    Token labOnly;
    /** The switches, by name, as the file defines them. */
    final Map<String, Choice> switches = new LinkedHashMap<>();
    /** Each gate's kind, by name, across the sessions: whether it is a crash gate. */
    final Map<String, Boolean> crashGates = new java.util.HashMap<>();

    LabTokens(String file, String text) {
        this.file = file;
        this.scanner = new SpecScanner(file, text, true);
        this.blocks = new BlockCheck(file, text);
    }

    SpecException error(Token at, String problem) {
        return new SpecException(file, at.line(), at.column(), problem);
    }

    Token advance() throws SpecException {
        Token current = token;
        token = ahead.isEmpty() ? scanner.next() : ahead.removeFirst();
        return current;
    }

    /** The token {@code n} after the current one (1: the next), read ahead without moving. */
    Token peek(int n) throws SpecException {
        while (ahead.size() < n) {
            ahead.addLast(scanner.next());
        }
        return ahead.get(n - 1);
    }

    /** Notes that the file uses {@code at}, which a spec lacks. */
    void labOnly(Token at) {
        if (labOnly == null) {
            labOnly = at;
        }
    }

    Token name(String what) throws SpecException {
        if (token.kind() != Kind.NAME) {
            throw error(token, "expected " + what + ", found " + token.describeForName());
        }
        return advance();
    }

    /**
     * A name the command line and the window take as a setting ({@code --delay after_read=20},
     * {@code --set fix=atomic}): lower-case letters, digits and {@code _}, a letter first, and not
     * one of the format's words.
     */
    Token settingName(String what) throws SpecException {
        Token name = ownName(what);
        if (!name.text().matches("[a-z][a-z0-9_]*")) {
            throw error(name, what.replaceFirst(" after .*", "") + " " + name.describe() + " must be lower-case "
                    + "letters, digits and _, a letter first: it is written on the command line (--delay, --set)");
        }
        return name;
    }

    /** A name for something only lab files have: not one of the format's words. */
    Token ownName(String what) throws SpecException {
        if (token.kind() == Kind.NAME && WORDS.contains(token.text())) {
            throw error(token, "expected " + what + ", found '" + token.text() + "', a word of the lab format");
        }
        return name(what);
    }

    int integer(String what, int most) throws SpecException {
        return integer(what, most, 1);
    }

    /** A number from {@code least} to {@code most}, called {@code what} in messages. */
    int integer(String what, int most, int least) throws SpecException {
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
        if (n < least || n > most) {
            throw error(number, what + " must be from " + least + " to " + most + ", not " + number.text());
        }
        return (int) n;
    }

    /** {@code pg}, {@code redis}, or nothing (PostgreSQL). */
    Server server() throws SpecException {
        for (Server server : Server.values()) {
            if (token.is(server.word())) {
                labOnly(advance());
                return server;
            }
        }
        return Server.PG;
    }

    Block block(String what, Server server) throws SpecException {
        if (token.kind() != Kind.SQL) {
            throw error(token, "expected '{' to begin " + what + ", found " + token.describe());
        }
        Token at = advance();
        return new Block(server, at.text(), at.line(), null);
    }

    /** A block for {@code server}, its Redis commands and values checked; {@code values} it may use. */
    Block checked(Server server, String what, Set<String> values) throws SpecException {
        Token at = token;
        Block block = block(what, server);
        if (blocks.check(at, block, what, values)) {
            labOnly(at);
        }
        return block;
    }

    /** {@code block}, under the {@code when} that may follow it. */
    Block underSwitch(Block block) throws SpecException {
        if (!token.is("when")) {
            return block;
        }
        labOnly(advance());
        return block.when(when());
    }

    /** {@code null}, {@code not null}, or a sign and an expression; {@code totals}: an invariant's. */
    Test test(Set<String> values, boolean totals) throws SpecException {
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
        return new Test(sign, expression(values, totals));
    }

    /** Terms joined by {@code + - *}, each a number, a name or one of {@code values}. */
    List<String> expression(Set<String> values, boolean totals) throws SpecException {
        List<String> expression = new ArrayList<>();
        expression.add(term(values, totals));
        while (token.kind() == Kind.STAR || (token.kind() == Kind.SIGN
                && (token.text().equals("+") || token.text().equals("-")))) {
            expression.add(token.kind() == Kind.STAR ? "*" : token.text());
            advance();
            expression.add(term(values, totals));
        }
        return expression;
    }

    String term(Set<String> values, boolean totals) throws SpecException {
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

    /** After {@code when}: {@code SWITCH = CHOICE} or {@code SWITCH != CHOICE}. */
    When when() throws SpecException {
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
            throw error(chosen, "switch " + switchName.text() + " has no choice " + chosen.text()
                    + ": its choices are " + choice.choices());
        }
        return new When(switchName.text(), chosen.text(), equal);
    }
}
