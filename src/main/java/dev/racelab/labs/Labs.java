package dev.racelab.labs;

import dev.racelab.backend.Backends;
import dev.racelab.engine.lab.Lab;
import dev.racelab.engine.lab.LabFinder;
import dev.racelab.isolation.SpecException;
import dev.racelab.labfile.LabReader;
import dev.racelab.labs.advisory.AdvisoryLockLab;
import dev.racelab.labs.counter.CounterLab;
import dev.racelab.labs.fencing.FencingLab;
import dev.racelab.labs.file.FileLab;
import dev.racelab.labs.isolation.IsolationLab;
import dev.racelab.labs.isolation.SpecSource;
import dev.racelab.labs.jobqueue.JobQueueLab;
import dev.racelab.labs.leasefencing.LeaseFencingLab;
import dev.racelab.labs.philosophers.PhilosophersLab;
import dev.racelab.labs.primitives.PrimitivesLab;
import dev.racelab.labs.readerswriters.ReadersWritersLab;
import dev.racelab.labs.redisfailover.RedisFailoverLab;
import dev.racelab.labs.replicaread.ReplicaReadLab;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The registry: every lab RaceLab offers, in the order the window lists them (one line per lab),
 * and the labs written as files — a lab file or an isolation spec read from a path
 * ({@link #read(Path)}), or carried as text in a recording ({@link #carried}).
 */
public final class Labs implements LabFinder {

    /** What a recording may call a lab it carries: a lab file's name, or the isolation lab's id. */
    private static final java.util.regex.Pattern RECORDED_ID = java.util.regex.Pattern.compile(
            "[A-Za-z0-9_][A-Za-z0-9 ._-]{0,99}\\.lab|" + IsolationLab.ID);
    /** How many carried labs are kept read at most (a recording holds a few; the window opens many). */
    private static final int MOST_CARRIED = 64;

    /** The largest lab file or spec RaceLab reads: a recording carries it whole on one line. */
    public static final int MOST_BYTES = 1 << 20;

    private final Backends backends;
    private final List<Lab> labs;
    private final IsolationLab isolation;
    /**
     * The labs last read from a file, by id: found before the built-in ones (an isolation spec is
     * the isolation lab bound to it), so a run of one, saved or exported, finds the lab it ran.
     */
    private final Map<String, Lab> files = new ConcurrentHashMap<>();
    /**
     * Labs recordings carried, by id and text: read once however often a file is read (a picture
     * reads it twice), and never found by {@link #find}: a recording changes no lab RaceLab offers.
     */
    private final Map<List<String>, Lab> carried = new ConcurrentHashMap<>();

    public Labs(Backends backends) {
        this.backends = backends;
        this.isolation = new IsolationLab(backends);
        this.labs = List.of(
                new CounterLab(backends),
                new FencingLab(backends),
                new LeaseFencingLab(backends),
                new JobQueueLab(backends),
                new AdvisoryLockLab(backends),
                new PrimitivesLab(backends),
                new PhilosophersLab(backends),
                new ReadersWritersLab(backends),
                new ReplicaReadLab(backends),
                new RedisFailoverLab(backends),
                isolation);
    }

    /** The labs a class can run ({@link Lab#classReady}), as words: "the counter and fencing labs". */
    public String classLabs() {
        List<String> ids = all().stream().filter(Lab::classReady).map(Lab::id).toList();
        return ids.size() == 1 ? "the " + ids.get(0) + " lab"
                : "the " + String.join(", ", ids.subList(0, ids.size() - 1)) + " and " + ids.get(ids.size() - 1) + " labs";
    }

    /** The built-in labs. */
    public List<Lab> all() {
        return labs;
    }

    /** The lab with {@code id}: the one last read from a file, else a built-in one. */
    public Optional<Lab> find(String id) {
        Lab lab = files.get(id);
        return lab != null ? Optional.of(lab) : labs.stream().filter(l -> l.id().equals(id)).findFirst();
    }

    @Override
    public Lab named(String id) {
        return find(id).orElse(null);
    }

    /** The ids, comma-separated, for messages. */
    public String ids() {
        return String.join(", ", labs.stream().map(Lab::id).toList());
    }

    /** Whether {@code path} names a lab written as a file: {@code FILE.lab} or an isolation {@code FILE.spec}. */
    public static boolean isFile(String path) {
        return path.endsWith(".lab") || path.endsWith(".spec");
    }

    /**
     * Reads the lab file or isolation spec at {@code path}, checked whole before any server is
     * touched: a lab file runs as a {@link FileLab}, a spec as the isolation lab bound to it.
     *
     * @throws IllegalArgumentException it cannot be read, or is not a lab: one line naming the file and, for a
     *                                  mistake in it, the line and column
     */
    public Lab read(Path path) {
        String fileName = path.getFileName() == null ? path.toString() : path.getFileName().toString();
        String text;
        try {
            if (!Files.isRegularFile(path)) {
                throw new IllegalArgumentException(path + ": no such lab file");
            }
            if (Files.size(path) > MOST_BYTES) {
                throw new IllegalArgumentException(path + ": a lab file is at most " + (MOST_BYTES >> 10) + " KiB");
            }
            text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(path)))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(path + ": not UTF-8 text");
        } catch (IOException e) {
            throw new IllegalArgumentException(path + ": cannot be read: " + e.getMessage());
        }
        Lab lab = fileName.endsWith(".spec") ? spec(fileName.replaceFirst("\\.spec$", ""), path.toString(), text)
                : labFile(fileName.replaceFirst("\\.lab$", ""), path.toString(), text);
        files.put(lab.id(), lab);
        return lab;
    }

    /**
     * The lab a recording carries as {@code source}: a lab file (an id ending {@code .lab}) or the
     * isolation lab's spec, read and checked as the file was; remembered under its id while the
     * recording is read and shown.
     */
    @Override
    public Lab carried(String id, String source) {
        if (source.length() > MOST_BYTES) {
            throw new IllegalArgumentException("a lab file is at most " + (MOST_BYTES >> 10) + " KiB");
        }
        if (!RECORDED_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("a lab file's name is letters, digits, '.', '_', '-' and ' ', "
                    + "ending .lab");
        }
        Lab known = carried.get(List.of(id, source));
        if (known != null) {
            return known;
        }
        Lab lab;
        if (id.endsWith(".lab")) {
            lab = labFile(id.substring(0, id.length() - ".lab".length()), id + " (as recorded)", source);
        } else {
            try {
                lab = isolation.withRecordedSpec(SpecSource.read(IsolationLab.ID, "the recorded spec", source));
            } catch (SpecException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
        }
        if (carried.size() > MOST_CARRIED) {
            carried.clear();
        }
        carried.put(List.of(id, source), lab);
        return lab;
    }

    private FileLab labFile(String name, String origin, String text) {
        try {
            return new FileLab(LabReader.read(name, origin, text), text, backends);
        } catch (SpecException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private IsolationLab spec(String name, String origin, String text) {
        try {
            return isolation.withSpec(SpecSource.read(name, origin, text));
        } catch (SpecException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }
}
