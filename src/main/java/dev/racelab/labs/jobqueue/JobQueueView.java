package dev.racelab.labs.jobqueue;

import dev.racelab.engine.Actor;
import dev.racelab.engine.Event;
import dev.racelab.engine.EventKind;
import dev.racelab.engine.Ink;
import dev.racelab.engine.RunHeader;
import dev.racelab.engine.view.LabView;
import dev.racelab.engine.view.Panel;
import dev.racelab.engine.view.RunTracker;
import dev.racelab.engine.view.Sketch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The job queue's state: the job table as a strip of cells, one per job, coloured by what
 * happened to it (new, taken by a consumer, sent, sent twice, orphaned) and each with a second
 * cue that needs no colour (the consumer's number, ✓, ×2 over hatching, ✕); the counts the
 * verdict gives; and each consumer's share. All from the run's events.
 */
final class JobQueueView implements LabView {

    /** The key figure's name on screen, the oracle's name for it. */
    static final String DUPLICATES = JobQueueScenario.DUPLICATES;

    private final RunTracker tracker;
    private final JobTable table;
    private long version;

    JobQueueView(JobQueueStrategy strategy, RunHeader header) {
        this.tracker = new RunTracker(header);
        int batch = header.spec().switches().get(JobQueueLab.BATCH);
        this.table = new JobTable(strategy.claims(), (int) Math.min(JobQueueLab.MOST_JOBS,
                JobQueueLab.jobs(header.spec().workers(), header.spec().ops(), batch)));
    }

    @Override
    public void accept(Event event) {
        tracker.accept(event);
        if (event.kind() == EventKind.ACTOR && event.value() == Actor.Kind.WORKER.ordinal()
                && !event.subject().equals(JobQueueLab.PRODUCER)) {
            table.consumerLane(event.actor());
        }
        if (table.accept(event)) {
            version++;
        }
    }

    @Override
    public long version() {
        return tracker.version() + version;
    }

    @Override
    public List<Panel> panels() {
        List<Panel> panels = new ArrayList<>();
        boolean over = table.ended();
        List<Panel.Value> jobs = new ArrayList<>();
        jobs.add(new Panel.Value("added", table.added() + " of " + table.planned(), Ink.TEXT));
        jobs.add(new Panel.Value("sent", String.valueOf(table.sentJobs()), Ink.TEXT));
        jobs.add(new Panel.Value("sent more than once", String.valueOf(table.sentTwice()),
                table.sentTwice() > 0 ? Ink.RACE : Ink.TEXT));
        jobs.add(new Panel.Value(DUPLICATES, String.valueOf(table.duplicates()),
                table.duplicates() > 0 ? Ink.RACE : Ink.SAFE));
        jobs.add(new Panel.Value("orphaned", String.valueOf(table.orphaned()),
                table.orphaned() > 0 ? Ink.RACE : Ink.TEXT));
        if (table.endedByItself()) {
            jobs.add(new Panel.Value("lost", String.valueOf(table.unsent()), table.unsent() > 0 ? Ink.RACE : Ink.TEXT));
        } else {
            jobs.add(new Panel.Value("not sent yet", String.valueOf(table.unsent()), Ink.TEXT));
        }
        jobs.add(new Panel.Value("taken over (lease ran out)", String.valueOf(table.reclaimed()), Ink.TEXT));
        jobs.add(new Panel.Value("short batches", String.valueOf(table.shortBatches()), Ink.TEXT));
        jobs.add(new Panel.Value("sends called off", String.valueOf(table.refused()), Ink.TEXT));
        jobs.add(new Panel.Value(over ? "jobs/s" : "jobs/s so far", String.valueOf(table.jobsPerSecond()), Ink.TEXT));
        panels.add(new Panel.Values("Jobs", jobs));
        panels.add(consumersPanel());
        panels.add(new Panel.Values("email_jobs, as PostgreSQL reports it", List.of(
                server("queued", JobQueueScenario.QUEUED), server("claimed", JobQueueScenario.CLAIMED),
                server("marked sent", JobQueueScenario.SENT), server("emails in the outbox", JobQueueScenario.OUTBOX))));
        panels.add(tracker.serverLocksPanel("Row locks, as pg_locks reports them"));
        return panels;
    }

    private Panel.Value server(String label, String subject) {
        Long value = tracker.serverValue(subject);
        return new Panel.Value(label, value == null ? "—" : String.valueOf(value), Ink.TEXT);
    }

    private Panel consumersPanel() {
        int total = table.emails();
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<Integer, JobTable.Consumer> entry : table.consumers().entrySet()) {
            JobTable.Consumer consumer = entry.getValue();
            String share = total == 0 ? "—" : Math.round(100.0 * consumer.sent() / total) + "%";
            rows.add(List.of(tracker.name(entry.getKey()), String.valueOf(consumer.sent()), share,
                    consumer.crashed() ? "crashed" : tracker.worker(entry.getKey()).state().label()));
        }
        return new Panel.Table("Emails each consumer sent", List.of("consumer", "sent", "share", "now"), rows);
    }

    @Override
    public boolean hasPicture() {
        return true;
    }

    @Override
    public void draw(Sketch s) {
        double em = s.em();
        double pad = em * 0.6;
        double w = s.width() - 2 * pad;
        double y = pad + em * 1.1;
        int duplicates = table.duplicates();
        int orphaned = table.orphaned();
        String headline = DUPLICATES + ": " + duplicates + (orphaned > 0 ? " · orphaned: " + orphaned : "");
        s.fill(duplicates > 0 || orphaned > 0 ? Ink.RACE : Ink.SAFE).text(headline, pad, y, 1.05, true,
                Sketch.Align.LEFT);
        String added = table.added() + "/" + table.planned() + " added";
        // Beside the headline when both fit (text about 0.6 em a character in bold, 0.45 plain).
        if ((headline.length() * 0.62 * 1.05 + added.length() * 0.45 * 0.75 + 1) * em < w) {
            s.fill(Ink.MUTED).text(added, pad + w, y, 0.75, false, Sketch.Align.RIGHT);
        }
        y += em * 0.6;

        List<JobTable.Job> jobs = table.jobs();
        double legendHeight = em * (legendLines(w, em) * 1.2 + 0.6);
        Grid grid = Grid.fit(jobs.size(), w, s.height() - y - legendHeight - pad, em);
        for (int i = 0; i < jobs.size(); i++) {
            double x = pad + (i % grid.columns) * (grid.cell + grid.gap);
            double top = y + (i / grid.columns) * (grid.cell + grid.gap);
            cell(s, jobs.get(i), i + 1, x, top, grid.cell);
        }
        double gridBottom = y + grid.rows(jobs.size()) * (grid.cell + grid.gap);
        legend(s, pad, Math.min(s.height() - pad - em * 1.25, gridBottom + em * 0.9), w);
    }

    /** How the cells are laid out: the largest square cells that fit the space, wrapped into rows. */
    private record Grid(int columns, double cell, double gap) {

        static Grid fit(int n, double width, double height, double em) {
            double gap = Math.max(2, em * 0.25);
            for (double cell = em * 3.2; cell > em * 0.9; cell -= 1) {
                int columns = Math.max(1, (int) ((width + gap) / (cell + gap)));
                int rows = (n + columns - 1) / columns;
                if (rows * (cell + gap) - gap <= height) {
                    return new Grid(columns, cell, gap);
                }
            }
            double cell = em * 0.9;
            return new Grid(Math.max(1, (int) ((width + gap) / (cell + gap))), cell, gap);
        }

        int rows(int n) {
            return (n + columns - 1) / columns;
        }
    }

    private void cell(Sketch s, JobTable.Job job, int id, double x, double y, double size) {
        double r = size * 0.12;
        boolean roomy = size >= s.em() * 1.9;
        JobTable.Look look = job.look();
        if (look == JobTable.Look.PLANNED) {
            s.stroke(Ink.OUTLINE, 0.6).strokeRoundRect(x, y, size, size, r);
            return;
        }
        s.fill(ink(look)).fillRoundRect(x, y, size, size, r);
        if (look == JobTable.Look.SENT_TWICE) {
            hatch(s, x, y, size);
        }
        boolean crowded = job.handlers().size() > 1 && look == JobTable.Look.TAKEN;
        s.stroke(crowded ? Ink.RACE : Ink.OUTLINE, crowded ? Math.max(2, size * 0.08) : 1)
                .strokeRoundRect(x, y, size, size, r);
        String mark = mark(job, look, id);
        double fit = size / Math.max(2, mark.length()) / s.em() * 1.6;
        double textSize = Math.min(roomy ? 0.95 : 0.7, fit);
        s.fill(look == JobTable.Look.NEW ? Ink.MUTED : Ink.SURFACE).text(mark, x + size / 2,
                y + size * (roomy ? 0.74 : 0.64), textSize, true, Sketch.Align.CENTER);
        if (roomy && look != JobTable.Look.NEW) {
            s.text(String.valueOf(id), x + size * 0.08, y + size * 0.3, 0.55, false, Sketch.Align.LEFT);
        }
        if (roomy && job.reclaimed()) {
            s.text("»", x + size * 0.94, y + size * 0.32, 0.7, true, Sketch.Align.RIGHT);
        }
    }

    /** The cell's words: its number while new, else who is on it or how often it went out. */
    private String mark(JobTable.Job job, JobTable.Look look, int id) {
        return switch (look) {
            case PLANNED, NEW -> String.valueOf(id);
            case TAKEN -> job.handlers().size() > 2 ? "c×" + job.handlers().size()
                    : "c" + job.handlers().stream().map(this::number).collect(Collectors.joining(","));
            case ORPHANED -> "c" + number(job.handlers().get(0)) + "✕";
            case SENT -> "✓";
            case SENT_TWICE -> "×" + job.sends();
        };
    }

    private static Ink ink(JobTable.Look look) {
        return switch (look) {
            case PLANNED, NEW -> Ink.SURFACE;
            case TAKEN -> Ink.HOLDING;
            case ORPHANED -> Ink.AT_GATE;
            case SENT -> Ink.SAFE;
            case SENT_TWICE -> Ink.RACE;
        };
    }

    /** A few thin diagonal lines across a cell: "sent twice" reads without its colour. */
    private static void hatch(Sketch s, double x, double y, double size) {
        s.stroke(Ink.TEXT, Math.max(0.8, size * 0.03));
        double step = size / 3;
        for (double d = step; d < 2 * size; d += step) {
            s.line(x + Math.max(0, d - size), y + Math.min(size, d), x + Math.min(size, d), y + Math.max(0, d - size));
        }
    }

    private String number(int actor) {
        String name = tracker.name(actor);
        return name.substring(name.lastIndexOf('-') + 1);
    }

    /** One entry of the picture's legend: a swatch like a cell that looks so (with its glyph, if any), and words. */
    private record Key(JobTable.Look look, String glyph, String words) {
        /** Its width in em: the swatch, a gap and the words. */
        double width() {
            return 0.85 + 0.3 + words.length() * 0.4;
        }
    }

    private static final List<Key> LEGEND = List.of(
            new Key(JobTable.Look.NEW, "", "new"),
            new Key(JobTable.Look.TAKEN, "", "c2: consumer-2 on it"),
            new Key(JobTable.Look.SENT, "", "✓ sent"),
            new Key(JobTable.Look.SENT_TWICE, "", "×2 sent twice"),
            new Key(JobTable.Look.ORPHANED, "", "c2✕ orphaned"),
            new Key(JobTable.Look.TAKEN, "»", "taken over"));

    /** How many lines the legend takes in {@code width} pixels, at a base font size of {@code em} pixels. */
    private static int legendLines(double width, double em) {
        int lines = 1;
        double cx = 0;
        for (Key key : LEGEND) {
            double item = key.width() * em;
            if (cx > 0 && cx + item > width) {
                lines++;
                cx = 0;
            }
            cx += item + em * 0.7;
        }
        return lines;
    }

    /** What the cells mean, in as few lines as the width allows. */
    private void legend(Sketch s, double x, double y, double width) {
        double em = s.em();
        double box = em * 0.85;
        double cx = x;
        double cy = y;
        for (Key key : LEGEND) {
            double itemWidth = key.width() * em;
            if (cx > x && cx + itemWidth > x + width) {
                cx = x;
                cy += em * 1.2;
            }
            double top = cy - box * 0.85;
            s.fill(ink(key.look())).fillRoundRect(cx, top, box, box, box * 0.15);
            if (key.look() == JobTable.Look.SENT_TWICE) {
                hatch(s, cx, top, box);
            }
            s.stroke(Ink.OUTLINE, 1).strokeRoundRect(cx, top, box, box, box * 0.15);
            if (!key.glyph().isEmpty()) {
                s.fill(Ink.SURFACE).text(key.glyph(), cx + box / 2, cy - box * 0.12, 0.7, true, Sketch.Align.CENTER);
            }
            s.fill(Ink.MUTED).text(key.words(), cx + box + em * 0.3, cy, 0.7, false, Sketch.Align.LEFT);
            cx += itemWidth + em * 0.7;
        }
    }
}
