package dev.racelab.isolation;

import dev.racelab.isolation.SpecScanner.Kind;
import dev.racelab.isolation.SpecScanner.Token;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an isolation spec in PostgreSQL's grammar ({@code src/test/isolation}: its scanner and
 * parser, read for their rules; this is RaceLab's own code):
 *
 * <pre>
 * spec        := setup* [teardown] session+ permutation*
 * setup       := 'setup' SQL            teardown := 'teardown' SQL
 * session     := 'session' NAME [setup] step+ [teardown]
 * step        := 'step' NAME SQL
 * permutation := 'permutation' entry+
 * entry       := NAME [ '(' marker { ',' marker } ')' ]
 * marker      := '*' | NAME | NAME 'notices' INTEGER
 * </pre>
 *
 * A NAME is a plain identifier ({@code [A-Za-z_\x80-]} then also digits and {@code $}) or a
 * double-quoted one ({@code ""} for a quote); names are never case-folded, and a keyword used as a
 * name must be quoted. SQL is everything between {@code {} and the next {@code }}, less the
 * blanks (not newlines) right inside the braces; there is no way to write {@code }} inside it.
 * {@code #} starts a comment to the end of the line, outside SQL and quotes.
 *
 * <p>Then the checks isolationtester makes: step names unique across the spec, every step a
 * permutation names defined, every marker's step in the same permutation and of another session.
 * The first problem found is thrown as a {@link SpecException} naming its line and column.
 */
public final class SpecReader {

    private SpecReader() {
    }

    /**
     * Reads the file at {@code path}; the spec's name is the file's name without {@code .spec},
     * and problems name the path as given.
     */
    public static Spec read(Path path) throws IOException, SpecException {
        String fileName = path.getFileName().toString();
        String name = fileName.endsWith(".spec") ? fileName.substring(0, fileName.length() - ".spec".length())
                : fileName;
        return read(name, path.toString(), new String(Files.readAllBytes(path), StandardCharsets.UTF_8));
    }

    /** Reads {@code text}, a spec called {@code name} found in {@code fileName} (for messages). */
    public static Spec read(String name, String fileName, String text) throws SpecException {
        return new Parser(fileName, new SpecScanner(fileName, text, false)).spec(name);
    }

    /**
     * Reads a permutation line's steps, as {@code racelab isolation --permutation} and the
     * window take one ({@code "s1a s2b(*) s1c"}), against {@code spec}'s steps. Problems name the
     * column in {@code text}, as found in {@code source}.
     */
    public static Permutation permutation(Spec spec, String source, String text) throws SpecException {
        Parser parser = new Parser(source, new SpecScanner(source, text, false));
        return parser.permutationOf(spec);
    }

    /** Builds the spec from the tokens, then checks what the grammar alone cannot. */
    private static final class Parser {

        private final String file;
        private final SpecScanner scanner;
        private Token token;

        Parser(String file, SpecScanner scanner) {
            this.file = file;
            this.scanner = scanner;
        }

        private SpecException error(Token at, String problem) {
            return new SpecException(file, at.line(), at.column(), problem);
        }

        private Token advance() throws SpecException {
            Token current = token;
            token = scanner.next();
            return current;
        }

        Spec spec(String name) throws SpecException {
            advance();
            if (token.kind() == Kind.END) {
                throw error(token, "the spec is empty: it needs at least one session "
                        + "(session NAME, then step NAME { SQL })");
            }
            List<String> setups = new ArrayList<>();
            while (token.kind() == Kind.SETUP) {
                advance();
                setups.add(sql("the setup"));
            }
            String teardown = null;
            if (token.kind() == Kind.TEARDOWN) {
                advance();
                teardown = sql("the teardown");
                if (token.kind() == Kind.SETUP) {
                    throw error(token, "setup blocks come before the teardown block");
                }
            }
            List<RawSession> sessions = new ArrayList<>();
            while (token.kind() == Kind.SESSION) {
                sessions.add(session());
            }
            if (sessions.isEmpty()) {
                throw error(token, "expected 'session' here, found " + token.describe()
                        + (token.kind() == Kind.END ? ": a spec needs at least one session" : ""));
            }
            List<List<RawEntry>> permutations = new ArrayList<>();
            while (token.kind() == Kind.PERMUTATION) {
                permutations.add(permutation());
            }
            if (token.kind() != Kind.END) {
                throw error(token, switch (token.kind()) {
                    case SETUP, TEARDOWN -> token.describe() + " blocks of the whole spec come before the sessions";
                    case SESSION -> "sessions come before the permutation lines";
                    case STEP -> "a step belongs in a session, before its teardown and the permutation lines";
                    default -> "expected 'permutation' or the end of the file, found " + token.describe();
                });
            }
            return check(name, setups, teardown, sessions, permutations);
        }

        private String sql(String what) throws SpecException {
            if (token.kind() != Kind.SQL) {
                throw error(token, "expected '{' to begin the SQL of " + what + ", found " + token.describe());
            }
            return advance().text();
        }

        private Token name(String what) throws SpecException {
            if (token.kind() != Kind.NAME) {
                throw error(token, "expected " + what + ", found " + token.describeForName());
            }
            return advance();
        }

        private record RawStep(Token name, String sql) {
        }

        private record RawSession(Token name, String setup, List<RawStep> steps, String teardown) {
        }

        private record RawMarker(Token step, Integer notices, Token at) {
        }

        private record RawEntry(Token step, List<RawMarker> markers) {
        }

        private RawSession session() throws SpecException {
            advance();
            Token name = name("the session's name after 'session'");
            String setup = null;
            if (token.kind() == Kind.SETUP) {
                advance();
                setup = sql("the setup of session " + name.text());
            }
            List<RawStep> steps = new ArrayList<>();
            while (token.kind() == Kind.STEP) {
                advance();
                Token stepName = name("the step's name after 'step'");
                steps.add(new RawStep(stepName, sql("step " + stepName.text())));
            }
            if (steps.isEmpty()) {
                throw error(token, "session " + name.text() + " has no step: expected 'step NAME { SQL }', found "
                        + token.describe());
            }
            if (token.kind() == Kind.SETUP) {
                throw error(token, "the setup of session " + name.text() + " comes before its steps");
            }
            String teardown = null;
            if (token.kind() == Kind.TEARDOWN) {
                advance();
                teardown = sql("the teardown of session " + name.text());
            }
            return new RawSession(name, setup, steps, teardown);
        }

        Permutation permutationOf(Spec spec) throws SpecException {
            advance();
            if (token.kind() == Kind.PERMUTATION) {
                advance();
            }
            Token first = token;
            List<RawEntry> entries = entries();
            if (entries.isEmpty()) {
                throw error(first, "a permutation lists at least one step, found " + token.describe());
            }
            if (token.kind() != Kind.END) {
                throw error(token, "expected a step's name, found " + token.describe());
            }
            Map<String, Step> steps = new HashMap<>();
            spec.steps().forEach(step -> steps.put(step.name(), step));
            return resolve(entries, steps, spec.sessions());
        }

        private List<RawEntry> permutation() throws SpecException {
            Token keyword = advance();
            List<RawEntry> entries = entries();
            if (entries.isEmpty()) {
                throw error(token.kind() == Kind.END ? keyword : token, "a permutation lists at least one step, found "
                        + token.describe());
            }
            return entries;
        }

        private List<RawEntry> entries() throws SpecException {
            List<RawEntry> entries = new ArrayList<>();
            while (token.kind() == Kind.NAME) {
                Token step = advance();
                List<RawMarker> markers = new ArrayList<>();
                if (token.kind() == Kind.LEFT) {
                    advance();
                    markers.add(marker());
                    while (token.kind() == Kind.COMMA) {
                        advance();
                        markers.add(marker());
                    }
                    if (token.kind() != Kind.RIGHT) {
                        throw error(token, "expected ',' or ')' in the markers of " + step.text() + ", found "
                                + token.describe());
                    }
                    advance();
                }
                entries.add(new RawEntry(step, markers));
            }
            return entries;
        }

        private RawMarker marker() throws SpecException {
            if (token.kind() == Kind.STAR) {
                return new RawMarker(null, null, advance());
            }
            Token step = name("a marker: '*', a step's name, or a step's name then 'notices N'");
            if (token.kind() != Kind.NOTICES) {
                return new RawMarker(step, null, step);
            }
            advance();
            if (token.kind() != Kind.INTEGER) {
                throw error(token, "expected a number after 'notices', found " + token.describe());
            }
            Token count = advance();
            int n;
            try {
                n = Integer.parseInt(count.text());
            } catch (NumberFormatException e) {
                throw error(count, "the number of notices " + count.text() + " is too large");
            }
            return new RawMarker(step, n, step);
        }

        /** isolationtester's checks, with the place of each problem. */
        private Spec check(String name, List<String> setups, String teardown, List<RawSession> rawSessions,
                           List<List<RawEntry>> rawPermutations) throws SpecException {
            Map<String, Step> steps = new HashMap<>();
            List<Session> sessions = new ArrayList<>();
            for (int s = 0; s < rawSessions.size(); s++) {
                RawSession raw = rawSessions.get(s);
                List<Step> own = new ArrayList<>();
                for (RawStep rawStep : raw.steps()) {
                    Step step = new Step(rawStep.name().text(), rawStep.sql(), s, rawStep.name().line());
                    Step earlier = steps.putIfAbsent(step.name(), step);
                    if (earlier != null) {
                        throw error(rawStep.name(), "step " + step.name() + " is defined twice (first on line "
                                + earlier.line() + "): step names are unique across the spec");
                    }
                    own.add(step);
                }
                sessions.add(new Session(raw.name().text(), raw.setup(), own, raw.teardown()));
            }
            List<Permutation> permutations = new ArrayList<>();
            for (List<RawEntry> entries : rawPermutations) {
                permutations.add(resolve(entries, steps, sessions));
            }
            return new Spec(name, setups, teardown, sessions, permutations);
        }

        private Permutation resolve(List<RawEntry> entries, Map<String, Step> steps, List<Session> sessions)
                throws SpecException {
            List<Step> named = new ArrayList<>();
            for (RawEntry entry : entries) {
                Step step = steps.get(entry.step().text());
                if (step == null) {
                    throw error(entry.step(), "the permutation names step " + entry.step().text()
                            + ", which no session defines");
                }
                named.add(step);
            }
            List<PermutationStep> resolved = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) {
                Step step = named.get(i);
                List<Blocker> blockers = new ArrayList<>();
                for (RawMarker marker : entries.get(i).markers()) {
                    blockers.add(blocker(step, marker, named, sessions));
                }
                resolved.add(new PermutationStep(step, blockers));
            }
            return new Permutation(resolved);
        }

        private Blocker blocker(Step step, RawMarker marker, List<Step> permutation, List<Session> sessions)
                throws SpecException {
            if (marker.step() == null) {
                return new Blocker.Once();
            }
            String other = marker.step().text();
            Step blocking = permutation.stream().filter(s -> s.name().equals(other)).findFirst()
                    .orElseThrow(() -> error(marker.at(), "the marker on " + step.name() + " names step " + other
                            + ", which this permutation does not run"));
            if (blocking.session() == step.session()) {
                throw error(marker.at(), "step " + step.name() + " cannot wait for " + other + ": both belong to "
                        + "session " + sessions.get(step.session()).name());
            }
            return marker.notices() == null ? new Blocker.AfterStep(blocking)
                    : new Blocker.AfterNotices(blocking, marker.notices());
        }
    }
}
