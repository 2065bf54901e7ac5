package dev.racelab.walkthrough;

import dev.racelab.engine.Printable;
import dev.racelab.engine.GatePlan;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Sweep;
import dev.racelab.engine.Switch;
import dev.racelab.engine.SwitchValues;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads a walkthrough as {@code docs/walkthrough-format.md} describes it, and checks it against the
 * labs there are: every lab, strategy, gate, worker and switch it names must exist, so a lesson
 * never breaks half-way in front of a class. A file that is wrong is refused with one message
 * naming its line ({@link Problem}).
 */
public final class WalkthroughReader {

    /** The most a walkthrough may ask of a batch. */
    static final int MOST_BATCH_RUNS = 1000;

    /** A walkthrough that cannot be read: the message names the source and the line. */
    public static final class Problem extends Exception {
        public Problem(String message) {
            super(message);
        }
    }

    private final Function<String, Optional<Lab>> labs;

    /** @param labs the lab with an id, if there is one */
    public WalkthroughReader(Function<String, Optional<Lab>> labs) {
        this.labs = labs;
    }

    public Walkthrough read(Path file) throws Problem {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new Problem(file + ": cannot be read (" + e.getMessage() + ")");
        }
        return parse(file.toString(), bytes);
    }

    public Walkthrough read(String source, InputStream in) throws Problem {
        try {
            return parse(source, in.readAllBytes());
        } catch (IOException e) {
            throw new Problem(source + ": cannot be read (" + e.getMessage() + ")");
        }
    }

    Walkthrough parse(String source, byte[] bytes) throws Problem {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new Problem(source + ": is not a walkthrough (not UTF-8 text)");
        }
        return parse(source, text, 1, null);
    }

    /**
     * A walkthrough a lab file carries ({@code walkthrough { … }}), for {@code lab}, which every
     * step is of unless it names another; {@code firstLine} is where its text begins in {@code
     * source}, so a problem names the file's line and column.
     */
    public Walkthrough embedded(String source, String text, int firstLine, Lab lab) throws Problem {
        return parse(source, text, firstLine, lab);
    }

    private Walkthrough parse(String source, String text, int firstLine, Lab embeddedIn) throws Problem {
        String[] lines = text.split("\r?\n", -1);
        String title = null;
        Lab fileLab = embeddedIn;
        List<Walkthrough.Step> steps = new ArrayList<>();
        StepBuilder step = null;
        for (int i = 0; i < lines.length; i++) {
            int number = i + firstLine;
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            String key = (colon < 0 ? line : line.substring(0, colon)).strip().toLowerCase(Locale.ROOT);
            String value = colon < 0 ? "" : line.substring(colon + 1).strip();
            Located at = new Located(source, number, embeddedIn == null ? 0
                    : lines[i].length() - lines[i].stripLeading().length() + 1);
            if (title == null) {
                if (!key.equals("walkthrough") || value.isEmpty()) {
                    throw at.problem("a walkthrough starts with 'walkthrough: TITLE'");
                }
                title = value;
                continue;
            }
            if (key.equals("step")) {
                if (step != null) {
                    steps.add(step.build());
                }
                if (value.isEmpty()) {
                    throw at.problem("'step:' needs a title");
                }
                step = new StepBuilder(at, value, fileLab);
                continue;
            }
            if (step == null) {
                if (key.equals("lab")) {
                    fileLab = lab(at, value);
                    continue;
                }
                throw at.problem("'" + key + "' belongs in a step; start one with 'step: TITLE'");
            }
            if (colon < 0 && !key.equals("run") && !key.equals("paragraph")) {
                throw at.problem("a line without a key: '" + Printable.excerpt(line, 40) + "' (words to show go after 'say:'; a step "
                        + "takes say, paragraph, lab, strategy, workers, ops, gates, set, run, batch, point)");
            }
            step.take(at, key, colon < 0, value);
        }
        if (step != null) {
            steps.add(step.build());
        }
        if (title == null) {
            throw new Problem(source + ": is empty; a walkthrough starts with 'walkthrough: TITLE'");
        }
        if (steps.isEmpty()) {
            throw new Problem(source + ": '" + title + "' has no step; add one with 'step: TITLE'");
        }
        return new Walkthrough(title, source, steps);
    }

    private Lab lab(Located at, String id) throws Problem {
        return labs.apply(id).orElseThrow(() -> at.problem("there is no lab '" + id + "'"));
    }

    /** A place in the source, for messages: a line, and in a lab file its column ({@code file:LINE:COLUMN:}). */
    private record Located(String source, int line, int column) {
        Problem problem(String what) {
            return new Problem(column > 0 ? source + ":" + line + ":" + column + ": " + what
                    : source + ", line " + line + ": " + what);
        }
    }

    /** One step as its lines come. */
    private final class StepBuilder {
        private final String source;
        private final int line;
        private final String title;
        private final StringBuilder text = new StringBuilder();
        private Lab lab;
        private String strategy;
        private Integer workers;
        private Integer ops;
        private String gates;
        private final List<String> switches = new ArrayList<>();
        private boolean run;
        private Walkthrough.BatchOrder batch;
        private final List<Walkthrough.Pointer> pointers = new ArrayList<>();

        private final Located at;

        StepBuilder(Located at, String title, Lab fileLab) {
            this.at = at;
            this.source = at.source();
            this.line = at.line();
            this.title = title;
            this.lab = fileLab;
        }

        void take(Located at, String key, boolean bare, String value) throws Problem {
            switch (key) {
                case "say" -> {
                    if (value.isEmpty()) {
                        throw at.problem("'say:' needs words");
                    }
                    text.append(text.length() == 0 ? "" : text.charAt(text.length() - 1) == '\n' ? "" : " ")
                            .append(value);
                }
                case "paragraph" -> text.append("\n");
                case "lab" -> lab = lab(at, value);
                case "strategy" -> {
                    Lab current = needLab(at, key);
                    if (current.strategy(value).isEmpty()) {
                        throw at.problem("lab " + current.id() + " has no strategy '" + value + "' (strategies: "
                                + String.join(", ", current.strategies().stream().map(s -> s.id()).toList()) + ")");
                    }
                    strategy = value;
                }
                case "workers" -> {
                    Lab current = needLab(at, key);
                    workers = number(at, key, value, current.minWorkers(), current.maxWorkers());
                }
                case "ops" -> ops = number(at, key, value, 1, 100_000);
                case "gates" -> {
                    Lab current = needLab(at, key);
                    int count = workers != null ? workers : current.defaultWorkers();
                    try {
                        GatePlan plan = GatePlan.parse(value, name -> current.workerIndex(name, count));
                        for (String gate : plan.describe(current::workerName).split("\\s+")) {
                            String id = gate.contains("=") ? gate.substring(0, gate.indexOf('=')) : gate;
                            if (!id.isEmpty() && current.gate(id).isEmpty()) {
                                throw at.problem("lab " + current.id() + " has no gate '" + id + "'");
                            }
                        }
                    } catch (IllegalArgumentException e) {
                        throw at.problem("gates: " + e.getMessage());
                    }
                    gates = value;
                }
                case "set" -> {
                    Lab current = needLab(at, key);
                    int eq = value.indexOf('=');
                    if (eq <= 0) {
                        throw at.problem("write 'set: NAME=VALUE'");
                    }
                    String name = value.substring(0, eq);
                    Switch<?> sw = current.profile().switchNamed(name).orElseThrow(() -> at.problem("lab "
                            + current.id() + " has no switch '" + name + "'"));
                    try {
                        SwitchValues.DEFAULTS.parse(sw, value.substring(eq + 1));
                    } catch (IllegalArgumentException e) {
                        throw at.problem("set " + value + ": " + e.getMessage());
                    }
                    switches.add(value);
                }
                case "run" -> {
                    if (!bare && !value.isEmpty()) {
                        throw at.problem("'run' stands alone on its line");
                    }
                    run = true;
                }
                case "batch" -> batch = batch(at, value);
                case "point" -> pointers.add(pointer(at, value));
                default -> throw at.problem("unknown '" + Printable.excerpt(key, 40) + "' (a step takes say, paragraph, lab, "
                        + "strategy, workers, ops, gates, set, run, batch, point)");
            }
        }

        private Lab needLab(Located at, String key) throws Problem {
            if (lab == null) {
                throw at.problem("'" + key + "' needs a lab: name one with 'lab: ID' at the top or in this step");
            }
            return lab;
        }

        private int number(Located at, String key, String value, int min, int max) throws Problem {
            if (!value.matches("[0-9]{1,9}")) {
                throw at.problem("'" + key + "' takes a whole number, not '" + value + "'");
            }
            int n = Integer.parseInt(value);
            if (n < min || n > max) {
                throw at.problem("'" + key + "' must be from " + min + " to " + max + ", not " + n);
            }
            return n;
        }

        /** {@code RUNS [strategy …] [sweep GATE=LO-HI/STEP]}. */
        private Walkthrough.BatchOrder batch(Located at, String value) throws Problem {
            Lab current = needLab(at, "batch");
            String[] words = value.split("\\s+");
            int runs = number(at, "batch", words.length == 0 ? "" : words[0], 1, MOST_BATCH_RUNS);
            List<String> strategies = new ArrayList<>();
            String sweep = null;
            for (int w = 1; w < words.length; w++) {
                if (words[w].equals("sweep") && w + 1 < words.length) {
                    sweep = words[++w];
                    try {
                        Sweep.parse(sweep, current, workers != null ? workers : current.defaultWorkers());
                    } catch (IllegalArgumentException e) {
                        throw at.problem("batch: sweep " + sweep + ": " + e.getMessage());
                    }
                } else if (current.strategy(words[w]).isPresent()) {
                    strategies.add(words[w]);
                } else {
                    throw at.problem("batch: lab " + current.id() + " has no strategy '" + words[w] + "'");
                }
            }
            if (strategies.isEmpty()) {
                current.strategies().forEach(s -> strategies.add(s.id()));
            }
            return new Walkthrough.BatchOrder(runs, strategies, sweep);
        }

        private Walkthrough.Pointer pointer(Located at, String value) throws Problem {
            String[] parts = value.split("\\s+", 2);
            String what = parts[0].toLowerCase(Locale.ROOT);
            String name = parts.length > 1 ? parts[1].strip() : null;
            Walkthrough.Target target = switch (what) {
                case "banner" -> Walkthrough.Target.BANNER;
                case "marks" -> Walkthrough.Target.MARKS;
                case "lane" -> Walkthrough.Target.LANE;
                case "panel" -> Walkthrough.Target.PANEL;
                case "picture" -> Walkthrough.Target.PICTURE;
                case "gates" -> Walkthrough.Target.GATES;
                case "last-runs" -> Walkthrough.Target.LAST_RUNS;
                default -> throw at.problem("'point: " + value + "': point at banner, marks, lane NAME, panel "
                        + "TITLE, picture, gates or last-runs");
            };
            if ((target == Walkthrough.Target.LANE || target == Walkthrough.Target.PANEL) == (name == null)) {
                throw at.problem(name == null ? "'point: " + what + "' needs the " + what + "'s name"
                        : "'point: " + what + "' takes no name");
            }
            return new Walkthrough.Pointer(target, name);
        }

        Walkthrough.Step build() throws Problem {
            if (text.length() == 0) {
                throw at.problem("step '" + title + "' says nothing; add 'say: …'");
            }
            return new Walkthrough.Step(line, title, text.toString(), lab == null ? null : lab.id(), strategy,
                    workers, ops, gates, switches, run, batch, pointers);
        }
    }
}
