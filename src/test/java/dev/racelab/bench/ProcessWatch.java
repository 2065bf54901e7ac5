package dev.racelab.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A process as Linux counts it: its resident memory ({@code /proc/PID/status}): {@code VmRSS}, what
 * it holds in memory now, and {@code VmHWM}, the most it has held since it started; and the CPU
 * time it spends ({@code /proc/PID/stat}). The memory counts everything the process has mapped
 * and touched: the Java heap as far as it was used, the JVM's own memory, the native libraries'
 * pages (JavaFX, GTK, Mesa) and the window's buffers.
 */
final class ProcessWatch {

    /**
     * What sampling for a while saw: in MB, the peak since the start, the most then, and the last;
     * and the CPU the process spent meanwhile, as a share of one core.
     */
    record Sampled(long peakMb, long highestMb, long settledMb, int samples, double cpuShare) {
    }

    /** Clock ticks a second in {@code /proc/PID/stat}: 100 on every Linux this runs on. */
    private static final double TICKS = 100;

    private final Path status;
    private final Path stat;

    ProcessWatch(long pid) {
        this.status = Path.of("/proc", Long.toString(pid), "status");
        this.stat = Path.of("/proc", Long.toString(pid), "stat");
    }

    /** Reads the status every 100 ms for {@code millis}; the settled figure is the last reading. */
    Sampled sample(long millis) throws IOException, InterruptedException {
        List<Long> rss = new ArrayList<>();
        long peak = 0;
        long start = System.nanoTime();
        long cpuBefore = cpuTicks();
        long end = start + millis * 1_000_000;
        do {
            long[] now = read();
            rss.add(now[0]);
            peak = Math.max(peak, now[1]);
            Thread.sleep(100);
        } while (System.nanoTime() < end);
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpu = (cpuTicks() - cpuBefore) / TICKS / seconds;
        long highest = rss.stream().mapToLong(Long::longValue).max().orElse(0);
        return new Sampled(peak / 1024, highest / 1024, rss.get(rss.size() - 1) / 1024, rss.size(), cpu);
    }

    /** User and system time so far, in clock ticks (fields 14 and 15, after the command's parenthesis). */
    private long cpuTicks() throws IOException {
        String line = Files.readString(stat);
        String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /** {VmRSS, VmHWM} in kB. */
    private long[] read() throws IOException {
        long rss = -1;
        long hwm = -1;
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("VmRSS:")) {
                rss = kilobytes(line);
            } else if (line.startsWith("VmHWM:")) {
                hwm = kilobytes(line);
            }
        }
        if (rss < 0 || hwm < 0) {
            throw new IOException(status + " has no VmRSS or VmHWM (the process has ended)");
        }
        return new long[] {rss, hwm};
    }

    private static long kilobytes(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }
}
