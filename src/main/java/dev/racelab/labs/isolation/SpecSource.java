package dev.racelab.labs.isolation;

import dev.racelab.isolation.Permutation;
import dev.racelab.isolation.Spec;
import dev.racelab.isolation.SpecException;
import dev.racelab.isolation.SpecReader;
import dev.racelab.isolation.TeachingSpec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The spec the isolation lab runs: one of RaceLab's teaching specs, or a spec file a user opened.
 * A file whose {@code #:} lines read as a teaching spec's is one (its outcomes shown and judged);
 * any other spec is PostgreSQL's plain format.
 *
 * @param spec     the spec
 * @param teaching its story and stated outcomes, if it has them
 * @param origin   where it came from, in words: "RaceLab's teaching spec", or the file's path
 * @param text     the spec's text, which a recording of it carries
 */
public record SpecSource(Spec spec, Optional<TeachingSpec> teaching, String origin, String text) {

    /**
     * The most permutations the lab offers of a spec without permutation lines: its grid and
     * list show the first this many interleavings (three sessions of four steps make 34,650).
     */
    public static final int MOST_PERMUTATIONS = 500;

    public static SpecSource of(TeachingSpec teaching) {
        return new SpecSource(teaching.spec(), Optional.of(teaching), "RaceLab's teaching spec", teaching.text());
    }

    /** Reads a spec file: a teaching spec if its {@code #:} lines say so, else a plain one. */
    public static SpecSource read(Path file) throws IOException, SpecException {
        String name = file.getFileName().toString().replaceFirst("\\.spec$", "");
        return read(name, file.toString(), Files.readString(file, StandardCharsets.UTF_8));
    }

    /** Reads {@code text}, the spec {@code name} found in {@code origin} (a file, a recording). */
    public static SpecSource read(String name, String origin, String text) throws SpecException {
        Spec spec = SpecReader.read(name, origin, text);
        Optional<TeachingSpec> teaching = Optional.empty();
        if (text.lines().anyMatch(line -> line.strip().startsWith("#: title "))) {
            teaching = Optional.of(TeachingSpec.parse(spec.name(), text));
        }
        return new SpecSource(spec, teaching, origin, text);
    }

    public String name() {
        return spec.name();
    }

    /** A title: the teaching spec's, else the spec's name. */
    public String title() {
        return teaching.map(TeachingSpec::title).orElse(spec.name());
    }

    /** The permutations offered: the spec's own lines, or its first {@link #MOST_PERMUTATIONS} interleavings. */
    public List<Permutation> permutations() {
        List<Permutation> list = new ArrayList<>();
        for (Permutation p : spec.permutations()) {
            if (list.size() == MOST_PERMUTATIONS) {
                break;
            }
            list.add(p);
        }
        return list;
    }

    /** How many permutations the spec has in all (may be more than are offered). */
    public long permutationCount() {
        return spec.permutationCount().min(java.math.BigInteger.valueOf(Long.MAX_VALUE)).longValue();
    }

    /** What permutation {@code number} (1-based) is called: its isolation level in a teaching spec. */
    public String label(int number) {
        return expectation(number).map(TeachingSpec.Expectation::label).orElse("permutation " + number);
    }

    /** What a teaching spec states permutation {@code number} (1-based) shows. */
    public Optional<TeachingSpec.Expectation> expectation(int number) {
        return teaching.filter(t -> number >= 1 && number <= t.expectations().size())
                .map(t -> t.expectations().get(number - 1));
    }
}
