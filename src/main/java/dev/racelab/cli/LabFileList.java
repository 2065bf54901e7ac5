package dev.racelab.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.racelab.isolation.SpecException;
import dev.racelab.labfile.LabFile;
import dev.racelab.labfile.LabReader;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code list FILE.lab} (or {@code FILE.spec}): reads and checks a lab file and says what is in it,
 * touching no server; a file that cannot be read is one line naming its line and column, exit 2.
 */
final class LabFileList {

    private static final Gson JSON = new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();

    private LabFileList() {
    }

    static LabFile read(Path file) throws UsageException {
        if (!Files.isRegularFile(file)) {
            throw new UsageException(file + ": no such lab file");
        }
        try {
            return LabReader.read(file);
        } catch (SpecException e) {
            throw new UsageException(e.getMessage());
        } catch (IOException e) {
            throw new UsageException(file + ": cannot be read: " + e.getMessage());
        }
    }

    static void print(LabFile lab, Path file, boolean json, PrintStream out) {
        if (json) {
            out.println(JSON.toJson(describe(lab, file)));
            return;
        }
        out.println(lab.title() + "  (" + file.getFileName() + (lab.spec() != null ? ", an isolation spec" : "") + ")");
        if (!lab.story().isBlank()) {
            out.println("  " + lab.story().strip().replaceAll("\\s+", " "));
        }
        for (LabFile.Choice choice : lab.switches()) {
            out.println("  switch " + choice.name() + ": " + String.join(", ", choice.choices()) + " (default "
                    + choice.byDefault() + ")");
        }
        for (LabFile.LabSession session : lab.sessions()) {
            out.println("  session " + session.name() + ": " + session.workers() + (session.workers() == 1 ? " worker"
                    : " workers") + " × " + session.ops() + (session.ops() == 1 ? " operation" : " operations"));
            for (LabFile.Item item : session.items()) {
                out.println("    " + itemLine(item));
            }
        }
        for (LabFile.Invariant invariant : lab.invariants()) {
            out.println("  invariant \"" + invariant.verdict() + "\": " + invariant.block().server().word() + " { "
                    + invariant.block().text().strip().replaceAll("\\s+", " ") + " } " + invariant.test());
        }
        if (lab.walkthrough() != null) {
            long steps = lab.walkthrough().text().lines().filter(l -> l.strip().toLowerCase(java.util.Locale.ROOT)
                    .startsWith("step:")).count();
            out.println("  walkthrough: " + steps + (steps == 1 ? " step" : " steps"));
        }
        if (lab.spec() != null) {
            java.math.BigInteger count = lab.spec().permutationCount();
            out.println("  " + count + (count.equals(java.math.BigInteger.ONE) ? " permutation" : " permutations"));
        }
    }

    private static String itemLine(LabFile.Item item) {
        if (item instanceof LabFile.Gate gate) {
            return "gate " + gate.name() + (gate.crash() ? " crash" : "")
                    + (gate.delay() == null ? "" : " delay " + gate.delay() + " ms")
                    + (gate.worker() == 0 ? "" : " (worker " + gate.worker() + ")");
        }
        if (item instanceof LabFile.Let let) {
            return "let " + let.name() + " = " + String.join(" ", let.expression());
        }
        LabFile.LabStep step = (LabFile.LabStep) item;
        StringBuilder line = new StringBuilder("step " + step.name() + " (" + step.block().server().word() + ")");
        if (step.capture() != null) {
            line.append(" capture ").append(step.capture());
        }
        if (step.when() != null) {
            line.append(" when ").append(step.when().switchName()).append(step.when().equal() ? " = " : " != ")
                    .append(step.when().choice());
        }
        if (step.until() != null) {
            line.append(" until ").append(step.until().test()).append(" max ").append(step.until().max());
            if (step.until().everyMillis() > 0) {
                line.append(" every ").append(step.until().everyMillis()).append(" ms");
            }
            if (!step.until().from().equals(step.name())) {
                line.append(" from ").append(step.until().from());
            }
        }
        return line.toString();
    }

    private static Map<String, Object> describe(LabFile lab, Path file) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("file", file.toString());
        json.put("name", lab.name());
        json.put("title", lab.title());
        json.put("story", lab.story());
        json.put("spec", lab.spec() != null);
        List<Object> switches = new ArrayList<>();
        lab.switches().forEach(s -> switches.add(ordered("name", s.name(), "choices", s.choices(), "default",
                s.byDefault())));
        json.put("switches", switches);
        List<Object> sessions = new ArrayList<>();
        for (LabFile.LabSession session : lab.sessions()) {
            sessions.add(ordered("name", session.name(), "workers", session.workers(), "ops", session.ops(),
                    "steps", session.steps().stream().map(LabFile.LabStep::name).toList(), "gates", session.gates()));
        }
        json.put("sessions", sessions);
        List<Object> invariants = new ArrayList<>();
        lab.invariants().forEach(i -> invariants.add(ordered("verdict", i.verdict(), "server",
                i.block().server().word(), "test", i.test().toString())));
        json.put("invariants", invariants);
        return json;
    }

    /** A map of {@code keysAndValues} (key, value, key, value, …) in the order given: JSON that reads the same each time. */
    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
