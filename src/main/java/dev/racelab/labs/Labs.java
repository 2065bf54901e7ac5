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

    /** The largest lab file or spec RaceLab reads: a recording carries it whole on one line. */
    public static final int MOST_BYTES = 1 << 20;

    private final Backends backends;
    private final List<Lab> labs;
    private final IsolationLab isolation;
    /**
     * The labs last read from a file or carried by a recording, by id: found before the built-in
     * ones (an isolation spec is the isolation lab bound to it), so a run of one, saved, exported
     * or opened again, finds the lab it ran.
     */
    private final Map<String, Lab> files = new ConcurrentHashMap<>();

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

    /** The built-in labs. */
    public List<Lab> all() {
        return labs;
    }

    /** The lab with {@code id}: the one last read from a file or a recording, else a built-in one. */
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
        Lab known = files.get(id);
        if (known != null && known.source().orElse("").equals(source)) {
            return known;
        }
        Lab lab;
        if (id.endsWith(".lab")) {
            lab = labFile(id.substring(0, id.length() - ".lab".length()), id + " (as recorded)", source);
        } else if (id.equals(IsolationLab.ID)) {
            lab = spec(IsolationLab.ID, "the recorded spec", source);
        } else {
            throw new IllegalArgumentException("the lab '" + id + "' is built into RaceLab, not written as a file");
        }
        files.put(id, lab);
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
