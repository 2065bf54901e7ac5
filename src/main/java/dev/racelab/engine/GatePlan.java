package dev.racelab.engine;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The user's settings for every gate: a rule for all workers and, where set, a rule for one
 * worker that overrides it. Immutable; each {@code with…} returns a new plan.
 */
public final class GatePlan {

    /** Every gate passes freely. */
    public static final GatePlan NONE = new GatePlan(Map.of(), Map.of());

    private final Map<String, GateRule> forAll;
    private final Map<Slot, GateRule> forOne;

    private GatePlan(Map<String, GateRule> forAll, Map<Slot, GateRule> forOne) {
        // In the order the rules were set, so describe() writes a plan the same way every time
        // (Map.copyOf's order changes from one JVM to the next).
        this.forAll = Collections.unmodifiableMap(new LinkedHashMap<>(forAll));
        this.forOne = Collections.unmodifiableMap(new LinkedHashMap<>(forOne));
    }

    /** The rule for {@code worker} (0-based) at gate {@code gateId}. */
    public GateRule rule(String gateId, int worker) {
        GateRule own = forOne.get(new Slot(gateId, worker));
        return own != null ? own : forAll.getOrDefault(gateId, GateRule.PASS);
    }

    /** The rule every worker follows at {@code gateId} unless it has its own. */
    public GateRule ruleForAll(String gateId) {
        return forAll.getOrDefault(gateId, GateRule.PASS);
    }

    /** Whether {@code worker} has a rule of its own at {@code gateId}. */
    public boolean hasOwnRule(String gateId, int worker) {
        return forOne.containsKey(new Slot(gateId, worker));
    }

    public GatePlan with(String gateId, GateRule rule) {
        Map<String, GateRule> all = new LinkedHashMap<>(forAll);
        put(all, gateId, rule);
        return new GatePlan(all, forOne);
    }

    public GatePlan with(String gateId, int worker, GateRule rule) {
        Map<Slot, GateRule> one = new LinkedHashMap<>(forOne);
        one.put(new Slot(gateId, worker), rule);
        return new GatePlan(forAll, one);
    }

    /** Drops {@code worker}'s own rule at {@code gateId}, so it follows the rule for all again. */
    public GatePlan withoutOwnRule(String gateId, int worker) {
        Map<Slot, GateRule> one = new LinkedHashMap<>(forOne);
        one.remove(new Slot(gateId, worker));
        return new GatePlan(forAll, one);
    }

    /** Whether any rule anywhere sets a breakpoint. */
    public boolean hasBreakpoints() {
        return forAll.values().stream().anyMatch(GateRule::breakpoint)
                || forOne.values().stream().anyMatch(GateRule::breakpoint);
    }

    /**
     * The settings as the command line writes them, e.g. {@code after-read=5 after-read=20@client-2
     * before-write=break after-check=2-20+break}; {@link #parse} reads them back.
     */
    public String describe(java.util.function.IntFunction<String> workerName) {
        StringBuilder text = new StringBuilder();
        forAll.forEach((gate, rule) -> append(text, gate, rule, null));
        forOne.forEach((slot, rule) -> append(text, slot.gateId, rule, workerName.apply(slot.worker)));
        return text.toString();
    }

    private static void append(StringBuilder text, String gate, GateRule rule, String worker) {
        if (rule.isPass() && worker == null) {
            return;
        }
        if (!text.isEmpty()) {
            text.append(' ');
        }
        text.append(gate).append('=').append(rule.delays() ? rule.delayText() : rule.breakpoint() ? "" : "0");
        if (rule.breakpoint()) {
            text.append(rule.delays() ? "+break" : "break");
        }
        if (worker != null) {
            text.append('@').append(worker);
        }
    }

    /**
     * This plan with one delay added as the command line writes it: {@code GATE=MS}, {@code
     * GATE=LO-HI}, either with {@code @WORKER} (a name, or a number from 1) for one of {@code
     * workers} workers of {@code lab}.
     *
     * @throws IllegalArgumentException saying what is wrong with {@code text}
     */
    public GatePlan withDelay(Experiment lab, int workers, String text) {
        int eq = text.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("write GATE=MS, like after-read=5");
        }
        String gate = text.substring(0, eq);
        String rest = text.substring(eq + 1);
        if (lab.gate(gate).isEmpty()) {
            throw new IllegalArgumentException("lab " + lab.id() + " has no gate '" + gate + "' (gates: "
                    + String.join(", ", lab.gates().stream().map(Gate::id).toList()) + ")");
        }
        String worker = null;
        int at = rest.indexOf('@');
        if (at >= 0) {
            worker = rest.substring(at + 1);
            rest = rest.substring(0, at);
        }
        GateRule rule = GateRule.parseDelay(rest);
        if (worker == null) {
            return with(gate, rule);
        }
        int index = worker.matches("[0-9]{1,9}") ? Integer.parseInt(worker) - 1 : lab.workerIndex(worker, workers);
        if (index < 0 || index >= workers) {
            throw new IllegalArgumentException("there is no worker '" + worker + "' among " + lab.workerName(0)
                    + " … " + lab.workerName(workers - 1));
        }
        return with(gate, index, rule);
    }

    /**
     * Reads a plan as {@link #describe} writes it.
     *
     * @param workerIndex the index of a worker by name, or -1 for a name no worker has
     * @throws IllegalArgumentException naming the part that is wrong
     */
    public static GatePlan parse(String text, java.util.function.ToIntFunction<String> workerIndex) {
        GatePlan plan = NONE;
        for (String part : text.strip().split("\\s+")) {
            if (part.isEmpty()) {
                continue;
            }
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("'" + part + "' is not GATE=RULE");
            }
            String gate = part.substring(0, eq);
            String rest = part.substring(eq + 1);
            int at = rest.indexOf('@');
            String worker = at < 0 ? null : rest.substring(at + 1);
            String ruleText = at < 0 ? rest : rest.substring(0, at);
            boolean breakpoint = ruleText.endsWith("break");
            String delay = breakpoint ? ruleText.substring(0, ruleText.length() - "break".length()) : ruleText;
            if (breakpoint && delay.endsWith("+")) {
                delay = delay.substring(0, delay.length() - 1);
            } else if (breakpoint && !delay.isEmpty()) {
                throw new IllegalArgumentException("'" + part + "': write a delay and a breakpoint as MS+break");
            }
            GateRule rule = (delay.isEmpty() ? GateRule.PASS : GateRule.parseDelay(delay)).withBreakpoint(breakpoint);
            if (worker == null) {
                plan = plan.with(gate, rule);
            } else {
                int index = workerIndex.applyAsInt(worker);
                if (index < 0) {
                    throw new IllegalArgumentException("'" + part + "': there is no worker '" + worker + "'");
                }
                plan = plan.with(gate, index, rule);
            }
        }
        return plan;
    }

    private static void put(Map<String, GateRule> map, String key, GateRule rule) {
        if (rule.isPass()) {
            map.remove(key);
        } else {
            map.put(key, rule);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof GatePlan plan && forAll.equals(plan.forAll) && forOne.equals(plan.forOne);
    }

    @Override
    public int hashCode() {
        return Objects.hash(forAll, forOne);
    }

    @Override
    public String toString() {
        return describe(worker -> "#" + worker);
    }

    private record Slot(String gateId, int worker) {
    }
}
