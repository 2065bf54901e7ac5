package dev.racelab.classroom;

import dev.racelab.engine.Fixture;
import dev.racelab.engine.LabWorker;
import dev.racelab.engine.Outcome;
import dev.racelab.engine.RunSummary;
import dev.racelab.engine.Scenario;
import dev.racelab.engine.ServerObserver;
import dev.racelab.engine.ServerWaits;
import dev.racelab.engine.WorkerContext;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The host's side of a class's run: the lab's scenario ({@code oracle}) with lanes that stand for
 * the participants' workers. The verdict is the lab's, over everyone's work, with each participant's
 * part: what it did, whose writes it replaced, and what it left unfinished.
 */
final class HostedScenario implements Scenario {

    private final Scenario oracle;
    private final ClassHub hub;
    private final List<ClassPlan.Seat> seats;
    private final Ledger ledger;

    HostedScenario(Scenario oracle, ClassHub hub, List<ClassPlan.Seat> seats, Ledger ledger) {
        this.oracle = oracle;
        this.hub = hub;
        this.seats = seats;
        this.ledger = ledger;
    }

    @Override
    public LabWorker worker(WorkerContext context) {
        ClassPlan.Seat seat = ClassPlan.seatAt(seats, context.index());
        if (seat == null) {
            throw new IllegalStateException("worker " + context.index() + " has no seat");
        }
        return new ProxyWorker(context, hub, seat, context.index() - seat.first(), oracle, ledger);
    }

    @Override
    public Outcome judge(RunSummary summary) throws Exception {
        Outcome judged = oracle.judge(summary);
        List<Ledger.Part> parts = ledger.parts();
        Map<String, Number> metrics = new LinkedHashMap<>(judged.metrics());
        metrics.put("participants", parts.size());
        return new Outcome(judged.verdict(), judged.headline(), judged.explanation() + " " + account(parts)
                + unattributed(judged, parts), judged.violations(), metrics, judged.places());
    }

    /**
     * What the names do not cover: lost increments (the counter), or newer prices replaced by stale
     * writes (fencing), whose events never reached the host (a participant that left, a batch that
     * did not arrive) are counted in the verdict but named by nobody, and the verdict says so rather
     * than let the names and the count disagree unseen.
     */
    static String unattributed(Outcome judged, List<Ledger.Part> parts) {
        long named = parts.stream().mapToLong(Ledger.Part::lost).sum();
        long missing = unnamed(judged, parts);
        if (missing == 0 || named == 0 && parts.stream().allMatch(p -> p.overwrote() == 0)) {
            return "";
        }
        boolean counter = judged.metrics().containsKey(LOST);
        String one = counter ? " lost increment" : " newer price lost to a stale write";
        String many = counter ? " lost increments" : " newer prices lost to stale writes";
        return " " + (missing > 0 ? missing + (missing == 1 ? one + " is" : many + " are")
                + " not named: their writes' events did not reach the host." : "The names count " + -missing
                + " more" + many + " than the verdict: some writes' events did not reach the host.");
    }

    private static final String LOST = "lostIncrements";
    private static final String STALE = "staleWritesApplied";

    /** How many of the verdict's lost writes the participants' parts do not name (negative: name too many). */
    static long unnamed(Outcome judged, List<Ledger.Part> parts) {
        Number lost = judged.metrics().containsKey(LOST) ? judged.metrics().get(LOST) : judged.metrics().get(STALE);
        return lost == null ? 0 : lost.longValue() - parts.stream().mapToLong(Ledger.Part::lost).sum();
    }

    /** Each participant's part, in words: what the projector's verdict names. */
    static String account(List<Ledger.Part> parts) {
        List<Ledger.Part> took = parts.stream().filter(p -> p.neverBegan() == null).toList();
        StringBuilder words = new StringBuilder("By participant: ");
        words.append(took.stream().map(HostedScenario::part).collect(Collectors.joining("; "))).append('.');
        Map<String, List<String>> absent = new LinkedHashMap<>();
        for (Ledger.Part p : parts) {
            if (p.neverBegan() != null) {
                absent.computeIfAbsent(p.neverBegan(), why -> new java.util.ArrayList<>()).add(p.name());
            }
        }
        absent.forEach((why, names) -> words.append(' ').append(names.size() == 1 ? names.get(0)
                : names.size() + " participants (" + String.join(", ", names) + ")").append(" could not begin: ")
                .append(why.endsWith(".") ? why : why + "."));
        for (Ledger.Part p : took) {
            if (!p.unfinished().isEmpty()) {
                words.append(' ').append(p.name()).append(" left with operation")
                        .append(p.unfinished().size() == 1 ? " " : "s ")
                        .append(p.unfinished().stream().map(String::valueOf).collect(Collectors.joining(", ")))
                        .append(" unfinished: whether ").append(p.unfinished().size() == 1 ? "it" : "they")
                        .append(" reached the server is not known.");
            }
        }
        return words.toString();
    }

    /**
     * One participant: what it did, how many of its writes were lost, how many of the others' its
     * writes wiped out. Counted in writes lost, not in overwriting writes (one write can wipe out
     * several), so the words never read as the verdict's count of overwriting writes.
     */
    private static String part(Ledger.Part p) {
        String words = p.name() + " " + p.ops() + (p.ops() == 1 ? " operation" : " operations");
        if (p.lost() > 0) {
            words += ", " + p.lost() + " of theirs lost";
        }
        if (p.overwrote() > 0) {
            words += ", wiped out " + p.overwrote() + " of others'";
        }
        return words;
    }

    @Override
    public Outcome diagnose(RunSummary summary) throws Exception {
        return oracle.diagnose(summary);
    }

    @Override
    public Outcome deadlock(RunSummary summary) throws Exception {
        return oracle.deadlock(summary);
    }

    @Override
    public List<Fixture> fixtures() {
        return oracle.fixtures();
    }

    @Override
    public String explain(Throwable failure) {
        return oracle.explain(failure);
    }

    @Override
    public ServerWaits serverWaits() {
        return oracle.serverWaits();
    }

    @Override
    public List<ServerObserver> observers() {
        return oracle.observers();
    }

    @Override
    public void close() throws Exception {
        oracle.close();
    }
}
