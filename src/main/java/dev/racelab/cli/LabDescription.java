package dev.racelab.cli;

import dev.racelab.engine.Gate;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.Strategy;
import dev.racelab.engine.Switch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A lab as {@code list --json} describes it: strategies, gates, preset delays, switches and defaults. */
final class LabDescription {

    private LabDescription() {
    }

    static Map<String, Object> of(Lab lab) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("id", lab.id());
        map.put("title", lab.title());
        map.put("story", lab.story());
        map.put("services", lab.services().stream().sorted().map(s -> s.name().toLowerCase()).toList());
        map.put("defaultStrategy", lab.defaultStrategy().id());
        List<Object> strategies = new ArrayList<>();
        for (Strategy s : lab.strategies()) {
            strategies.add(Map.of("id", s.id(), "title", s.title(), "summary", s.summary(), "broken", s.broken()));
        }
        map.put("strategies", strategies);
        List<Object> gates = new ArrayList<>();
        for (Gate g : lab.gates()) {
            gates.add(Map.of("id", g.id(), "kind", g.kind().name().toLowerCase(Locale.ROOT),
                    "description", g.description()));
        }
        map.put("gates", gates);
        map.put("presetDelays", lab.presetGates().describe(lab::workerName));
        List<Object> switches = new ArrayList<>();
        for (Switch<?> sw : lab.switches()) {
            switches.add(describe(sw));
        }
        map.put("switches", switches);
        map.put("workerRole", lab.workerRole());
        map.put("defaults", Map.of("workers", lab.defaultWorkers(), "ops", lab.defaultOps()));
        map.put("maxWorkers", lab.maxWorkers());
        return map;
    }

    private static <T> Map<String, Object> describe(Switch<T> sw) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", sw.name());
        map.put("title", sw.title());
        map.put("description", sw.description());
        map.put("type", sw.type().name().toLowerCase(Locale.ROOT));
        map.put("default", sw.defaultText());
        switch (sw.type()) {
            case INTEGER -> {
                map.put("min", sw.min());
                map.put("max", sw.max());
                map.put("unit", sw.unit());
            }
            case CHOICE -> map.put("choices", sw.choices().stream().map(sw::format).toList());
            case FLAG -> {
            }
        }
        return map;
    }
}
