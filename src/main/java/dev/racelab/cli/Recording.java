package dev.racelab.cli;

import com.google.gson.Gson;
import dev.racelab.engine.Actor;
import dev.racelab.engine.Event;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.Run;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Saves runs as JSON lines: per run, one {@code "type":"run"} line (lab, strategy, settings,
 * actors, outcome, which servers — never their credentials), then one {@code "type":"event"} line
 * per event. Written to a temporary file beside the target and moved into place when complete,
 * so a failed run never leaves half a file where a good one was.
 */
class Recording implements AutoCloseable {

    static final Recording NONE = new Recording();

    private static final Gson GSON = new Gson();

    private final Path target;
    private final Path partial;
    private final BufferedWriter writer;

    private Recording() {
        this.target = null;
        this.partial = null;
        this.writer = null;
    }

    private Recording(Path target) throws IOException {
        this.target = target;
        this.partial = target.resolveSibling(target.getFileName() + ".part");
        this.writer = Files.newBufferedWriter(partial, StandardCharsets.UTF_8);
    }

    static Recording open(Path target) throws IOException {
        return new Recording(target);
    }

    void write(int index, Run run, Outcome outcome, Map<String, String> backend) throws IOException {
        if (writer == null) {
            return;
        }
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("type", "run");
        header.put("run", index);
        header.put("lab", run.lab().id());
        header.put("strategy", run.spec().strategy());
        header.put("workers", run.spec().workers());
        header.put("ops", run.spec().ops());
        header.put("seed", run.spec().seed());
        header.put("delays", run.spec().gates().describe(run.lab()::workerName));
        header.put("backend", backend);
        List<Object> actors = new ArrayList<>();
        for (Actor actor : run.actors()) {
            actors.add(Map.of("id", actor.id(), "name", actor.name(), "kind", actor.kind().name()));
        }
        header.put("actors", actors);
        header.put("verdict", outcome.verdict().name());
        header.put("headline", outcome.headline());
        header.put("explanation", outcome.explanation());
        header.put("violations", outcome.violations());
        header.put("metrics", outcome.metrics());
        header.put("droppedEvents", run.recorder().dropped());
        writer.write(GSON.toJson(header));
        writer.newLine();
        long size = run.recorder().size();
        for (long seq = 0; seq < size; seq++) {
            Event e = run.recorder().get(seq);
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("type", "event");
            line.put("run", index);
            line.put("seq", e.seq());
            line.put("nanos", e.nanos() - run.startNanos());
            line.put("actor", e.actor());
            line.put("kind", e.kind().name());
            if (e.subject() != null) {
                line.put("subject", e.subject());
            }
            line.put("value", e.value());
            writer.write(GSON.toJson(line));
            writer.newLine();
        }
    }

    @Override
    public void close() throws IOException {
        if (writer == null) {
            return;
        }
        writer.close();
        Files.move(partial, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
