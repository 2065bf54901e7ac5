package dev.racelab.isolation;

import dev.racelab.isolation.SqlLexer.Token;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A spec's {@code CREATE ROLE} or {@code DROP ROLE} (or {@code USER}, {@code GROUP}), which RaceLab
 * carries out itself, on its own connection, under a name of the run's ({@link RoleNames}): the
 * spec's sessions log in as a role that may not create roles, and roles belong to the whole server.
 *
 * <p>A role RaceLab creates for a spec is a plain one: no login (the spec's sessions log in as
 * RaceLab's role for it and take this one with {@code SET ROLE}), no superuser, no right to create
 * databases or roles, to replicate or to bypass row security. A {@code CREATE ROLE} asking for any
 * of those, for a password, or for memberships is not carried out ({@link Unsupported}); {@code
 * [NO]INHERIT} is kept, {@code LOGIN}, {@code CONNECTION LIMIT} and {@code VALID UNTIL} mean nothing
 * for a role nobody logs in as and are let go.
 *
 * @param creates true for CREATE, false for DROP
 * @param roles   the roles named, as the server names them (one for CREATE)
 * @param ifExists DROP … IF EXISTS
 * @param inherit whether the created role inherits the rights of roles it is a member of
 */
public record RoleStatement(boolean creates, List<String> roles, boolean ifExists, boolean inherit) {

    /** Why a role statement is not one RaceLab carries out. */
    public static final class Unsupported extends Exception {
        public Unsupported(String why) {
            super(why);
        }
    }

    /** Why a role statement with a body in it is not carried out. */
    public static final String WITH_BODY = "RaceLab carries out a role statement only as plain words, with no "
            + "dollar-quoted text or body inside it";

    private static final Set<String> HARMLESS = Set.of("nosuperuser", "nocreatedb", "nocreaterole", "noreplication",
            "nobypassrls", "login", "nologin", "inherit", "noinherit");

    public RoleStatement {
        roles = List.copyOf(roles);
    }

    /** ROLE, USER or GROUP after the verb, and not USER MAPPING (a foreign server's, in the database). */
    public static boolean isRoleStatement(List<Token> t) {
        return t.size() > 2 && isRoleKind(t.get(1)) && !(t.get(1).is("user") && t.get(2).is("mapping"));
    }

    static boolean isRoleKind(Token t) {
        return t.is("role") || t.is("user") || t.is("group");
    }

    /**
     * Reads a CREATE or DROP role statement.
     *
     * @return the statement, or null when {@code t} is none
     * @throws Unsupported when it is one RaceLab will not carry out (the message says why)
     */
    public static RoleStatement read(List<Token> t) throws Unsupported {
        if (!isRoleStatement(t) || !(t.get(0).is("create") || t.get(0).is("drop"))) {
            return null;
        }
        if (t.get(0).is("drop")) {
            boolean ifExists = t.size() > 3 && t.get(2).is("if") && t.get(3).is("exists");
            List<String> names = roleNames(t, 2).stream().map(Token::text).toList();
            return new RoleStatement(false, names, ifExists, true);
        }
        String name = t.get(2).text();
        if (name.equals("public") || name.equals("none") || name.startsWith("pg_")) {
            throw new Unsupported("PostgreSQL keeps the role name " + name + " for itself");
        }
        boolean inherit = true;
        int i = 3;
        if (i < t.size() && t.get(i).is("with")) {
            i++;
        }
        while (i < t.size()) {
            Token option = t.get(i);
            String word = option.quoted() ? "\"" + option.text() + "\"" : option.text();
            if (option.is("connection") && i + 2 < t.size() && t.get(i + 1).is("limit")) {
                i += t.get(i + 2).is("-") ? 4 : 3;
                continue;
            }
            if (option.is("valid") && i + 2 < t.size() && t.get(i + 1).is("until")) {
                i += 3;
                continue;
            }
            if (!HARMLESS.contains(word)) {
                throw new Unsupported("RaceLab creates a spec's roles as plain roles that never log in, and "
                        + (option.is("in") || option.is("role") || option.is("user") || option.is("admin")
                        ? "does not carry out the memberships CREATE ROLE … " + word.toUpperCase(Locale.ROOT)
                                + " asks for"
                        : "will not give one " + asked(word)));
            }
            inherit = option.is("noinherit") ? false : option.is("inherit") || inherit;
            i++;
        }
        return new RoleStatement(true, List.of(t.get(2).text()), false, inherit);
    }

    private static String asked(String option) {
        return switch (option) {
            case "superuser" -> "superuser rights";
            case "createdb" -> "the right to create databases";
            case "createrole" -> "the right to create roles";
            case "replication" -> "the right to replicate";
            case "bypassrls" -> "the right to bypass row security";
            case "password", "encrypted" -> "a password";
            case "sysid" -> "an id of the spec's choosing";
            default -> "what " + option.toUpperCase(Locale.ROOT) + " asks for";
        };
    }

    /** The role names from {@code from}: a comma-separated list, after IF EXISTS; stops at the first other word. */
    static List<Token> roleNames(List<Token> t, int from) {
        List<Token> names = new ArrayList<>();
        int i = from;
        if (i + 1 < t.size() && t.get(i).is("if") && t.get(i + 1).is("exists")) {
            i += 2;
        }
        if (i < t.size() && t.get(i).is("all")) {
            names.add(stand(t.get(i), "ALL (every role)"));
            return names;
        }
        while (i < t.size()) {
            Token name = t.get(i);
            if (name.is("group") && i + 1 < t.size()) {
                name = t.get(++i);
            }
            if (name.is("current_user") || name.is("session_user") || name.is("current_role")
                    || name.is("public")) {
                names.add(stand(name, name.text().toUpperCase(Locale.ROOT) + " (a role the spec does not create)"));
            } else {
                names.add(name);
            }
            if (i + 1 < t.size() && t.get(i + 1).is(",")) {
                i += 2;
            } else {
                break;
            }
        }
        return names;
    }

    /** A stand-in naming what {@code t} means, never one of a spec's roles. */
    private static Token stand(Token t, String text) {
        return new Token(text, true, t.line(), -1, -1, null, t.body());
    }
}
