package dev.racelab.isolation;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One of RaceLab's own specs for teaching: an isolation spec (PostgreSQL's format, so {@code
 * racelab isolation} and PostgreSQL's isolationtester both run it) whose comments starting
 * {@code #:} tell its story and, for each permutation line in order, the outcome it shows:
 *
 * <pre>
 * #: title Lost update (P4)
 * #: story Two clerks read the same balance of 100 and …
 * #: read committed: anomaly — Bob … writes 120 over her 110 …
 * #: repeatable read: rejected 40001 — Bob waits, then is refused …
 * </pre>
 *
 * An outcome is {@code anomaly} (it happened), {@code safe} (it did not, and nothing was refused)
 * or {@code rejected SQLSTATE} (a transaction was refused with that error, and it did not happen).
 * Whether it happened is the spec's own {@code check} step's say: it runs last, on committed
 * data, and returns a column {@code anomaly}. The tests hold every spec to its outcomes.
 */
public record TeachingSpec(String id, String title, String story, List<Expectation> expectations, Spec spec) {

    private static final String FOLDER = "teaching/";
    private static final Pattern OUTCOME = Pattern.compile("#:\\s*(.+?):\\s*(anomaly|safe|rejected\\s+(\\w{5}))"
            + "\\s+—\\s+(.+)");

    public TeachingSpec {
        expectations = List.copyOf(expectations);
    }

    /** What a permutation shows. */
    public enum Kind {
        ANOMALY, SAFE, REJECTED
    }

    /**
     * The outcome one permutation line must show.
     *
     * @param label       which isolation level (and variant) it runs: "read committed"
     * @param sqlState    for {@link Kind#REJECTED}, the error a transaction is refused with; else null
     * @param explanation why, in a sentence a student reads beside the result
     */
    public record Expectation(String label, Kind kind, String sqlState, String explanation) {

        /** {@code anomaly}, {@code safe}, {@code rejected 40001}: as the spec writes it. */
        public String outcome() {
            return kind == Kind.REJECTED ? "rejected " + sqlState : kind.name().toLowerCase();
        }
    }

    /** The bundled teaching specs, in the order they are offered. */
    public static List<TeachingSpec> all() {
        List<TeachingSpec> all = new ArrayList<>();
        for (String line : resource("index").split("\n")) {
            String id = line.strip();
            if (!id.isEmpty() && !id.startsWith("#")) {
                all.add(load(id));
            }
        }
        return all;
    }

    public static Optional<TeachingSpec> find(String id) {
        return all().stream().filter(t -> t.id().equals(id)).findFirst();
    }

    /** The spec's text, as a user would open it from a file. */
    public String text() {
        return resource(id + ".spec");
    }

    private static TeachingSpec load(String id) {
        try {
            return parse(id, resource(id + ".spec"));
        } catch (SpecException e) {
            throw new IllegalStateException("bundled teaching spec " + id + " does not read: " + e.getMessage(), e);
        }
    }

    /** Reads a teaching spec: the spec itself, then its {@code #:} lines, which must match its permutations. */
    public static TeachingSpec parse(String id, String text) throws SpecException {
        Spec spec = SpecReader.read(id, id + ".spec", text);
        String title = null;
        String story = null;
        List<Expectation> expectations = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (!line.startsWith("#:")) {
                continue;
            }
            String body = line.substring(2).strip();
            if (body.startsWith("title ")) {
                title = body.substring("title ".length()).strip();
                continue;
            }
            if (body.startsWith("story ")) {
                story = body.substring("story ".length()).strip();
                continue;
            }
            Matcher m = OUTCOME.matcher(line);
            if (!m.matches()) {
                throw new SpecException(id + ".spec", i + 1, 1, "a '#:' line is a title, a story, or "
                        + "'LABEL: anomaly|safe|rejected SQLSTATE — why'");
            }
            Kind kind = m.group(2).startsWith("rejected") ? Kind.REJECTED : Kind.valueOf(m.group(2).toUpperCase());
            expectations.add(new Expectation(m.group(1), kind, m.group(3), m.group(4)));
        }
        if (title == null || story == null) {
            throw new SpecException(id + ".spec", 1, 1, "a teaching spec has a '#: title' and a '#: story' line");
        }
        if (expectations.size() != spec.declared().size()) {
            throw new SpecException(id + ".spec", 1, 1, "a teaching spec states one outcome per permutation line: "
                    + expectations.size() + " outcomes, " + spec.declared().size() + " permutations");
        }
        if (spec.step("check").isEmpty()) {
            throw new SpecException(id + ".spec", 1, 1, "a teaching spec has a step 'check' that says whether the "
                    + "anomaly happened");
        }
        return new TeachingSpec(id, title, story, expectations, spec);
    }

    private static String resource(String name) {
        try (InputStream in = TeachingSpec.class.getResourceAsStream(FOLDER + name)) {
            if (in == null) {
                throw new IllegalStateException("missing teaching spec resource " + FOLDER + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
