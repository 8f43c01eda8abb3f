// TriggerPeer measures trigger delay on the JDK's own executors, the peer
// of ckptsim's BenchmarkTrigger, and prints Go benchmark-format lines
// (with a "peer: jdk" configuration line) so that benchstat can set the
// two side by side.
//
// Designs, as in core/sched:
//   per-pipeline   a 2-thread ScheduledThreadPoolExecutor per pipeline,
//                  bodies run on the timer threads
//   shared         one 2-thread ScheduledThreadPoolExecutor that only
//                  fires and hands off to a bounded ThreadPoolExecutor
//                  (max(8, 2 x cores) threads, unbounded queue)
//   shared-inline  the 2 shared timer threads run bodies themselves
//
// Each pipeline's periodic trigger re-arms itself from its body at a
// fixed rate, due times staggered evenly over the interval
// max(10, pipelines) x spacing. One op is one observed firing. Delay is
// measured from the intended schedule (first + k x interval), and every
// firing due in the first full interval is warm-up, exactly as
// bench/trigger_test.go does.
//
// Usage: java TriggerPeer.java [-n samples] [-spacing ms] [-pipelines 10,100,500]
//        [-designs per-pipeline,shared,shared-inline] [-count k] [-tails FILE]
//
// -n 0 prints the configuration header only.
//
// Idle mode (the peer of bench's BenchmarkIdleMember): -idle SECONDS runs,
// for every design x pipelines x interval (-intervals, ms, default
// 1000,10000), the same periodic triggers at that interval, waits one
// interval, then measures a window of SECONDS and prints
// BenchmarkIdleMember/env=jdk/design=D/pipelines=P/interval=I lines with
// cpu-% (process CPU per wall second, percent of one core), threads and
// rss-MiB (/proc/self/status, after System.gc() before the window),
// gc-cycles, firings/s, ctxsw/s (contextSwitches per wall second over the
// window), and, with -safepointlog FILE (the file of
// -Xlog:safepoint=info:file=FILE that the JVM was started with), the
// longest safepoint pause in the window (stw-max-ns: "Total") and the
// longest time to reach a safepoint (stw-stopping-max-ns: "Reaching
// safepoint"), the JVM's analogues of Go's stop-the-world figures.
//
// -tails FILE appends every collected sample to FILE as CSV
// (cell,due,fired,started,-pid; System.nanoTime is CLOCK_MONOTONIC on
// Linux), as bench's -trigger.tails does, for bench/cmd/tailattr.
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

public class TriggerPeer {
    static int samples = 500;
    static long spacingNs = 20_000_000L;
    static String tails = null;
    static double idleSeconds = 0;
    static List<Long> intervalsMs = List.of(1000L, 10000L);
    static String safepointLog = null;

    public static void main(String[] args) throws Exception {
        List<Integer> pipelines = List.of(10, 100, 500);
        List<String> designs = List.of("per-pipeline", "shared", "shared-inline");
        int count = 1;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "-n" -> samples = Integer.parseInt(args[i + 1]);
                case "-spacing" -> spacingNs = (long) (Double.parseDouble(args[i + 1]) * 1e6);
                case "-pipelines" -> pipelines = Arrays.stream(args[i + 1].split(",")).map(Integer::parseInt).toList();
                case "-designs" -> designs = List.of(args[i + 1].split(","));
                case "-count" -> count = Integer.parseInt(args[i + 1]);
                case "-tails" -> tails = args[i + 1];
                case "-idle" -> idleSeconds = Double.parseDouble(args[i + 1]);
                case "-intervals" -> intervalsMs = Arrays.stream(args[i + 1].split(",")).map(Long::parseLong).toList();
                case "-safepointlog" -> safepointLog = args[i + 1];
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        System.out.println("peer: jdk");
        System.out.println("jdk: " + System.getProperty("java.vm.name").replace(' ', '-') + "-" + System.getProperty("java.version"));
        System.out.println("goos: linux");
        System.out.println("goarch: amd64");
        System.out.println("pkg: github.com/ckptsim/ckptsim/bench");
        if (idleSeconds == 0) {
            System.out.println("cpu-clock: schedstat"); // cpu-ns/op: threadCpu, as the Go side's
        }
        if (idleSeconds > 0) {
            for (String d : designs) {
                for (int p : pipelines) {
                    for (long ms : intervalsMs) {
                        idle(d, p, ms * 1_000_000L);
                    }
                }
            }
            return;
        }
        if (samples == 0) {
            return; // -n 0: the configuration header only (bench/side.sh)
        }
        for (int c = 0; c < count; c++) {
            for (String d : designs) {
                for (int p : pipelines) {
                    run(d, p);
                }
            }
        }
    }

    // Run collects samples. Warm-up, as bench/trigger_test.go: every firing
    // due in the first full interval (each pipeline's first) is discarded.
    static final class Run {
        final long[] delay, late, hop, dues;
        final AtomicInteger seen = new AtomicInteger();
        final long warmEnd;
        final int want;
        final CountDownLatch warmed = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(1);

        Run(long warmEnd, int want) {
            this.warmEnd = warmEnd;
            this.want = want;
            delay = new long[want];
            late = new long[want];
            hop = new long[want];
            dues = new long[want];
        }

        void record(long due, long fired, long started) {
            if (due - warmEnd <= 0) {
                return;
            }
            int i = seen.getAndIncrement();
            if (i == 0) {
                warmed.countDown();
            }
            if (i >= want) {
                return;
            }
            delay[i] = started - due;
            late[i] = fired - due;
            hop[i] = started - fired;
            dues[i] = due;
            if (i == want - 1) {
                done.countDown();
            }
        }
    }

    static long interval(int p) {
        return Math.max(10, p) * spacingNs;
    }

    static void run(String design, int p) throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        long iv = interval(p);
        long start = System.nanoTime();
        Run r = new Run(start + iv, samples);
        List<ScheduledThreadPoolExecutor> timers = new ArrayList<>();
        ExecutorService dispatch = null;
        int bound = Math.max(8, 2 * cores);
        if (!design.equals("per-pipeline")) {
            timers.add(new ScheduledThreadPoolExecutor(2));
        }
        if (design.equals("shared")) {
            dispatch = new ThreadPoolExecutor(bound, bound, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
            ((ThreadPoolExecutor) dispatch).allowCoreThreadTimeOut(true);
        }
        for (int i = 0; i < p; i++) {
            ScheduledThreadPoolExecutor t;
            if (design.equals("per-pipeline")) {
                t = new ScheduledThreadPoolExecutor(2);
                timers.add(t);
            } else {
                t = timers.get(0);
            }
            new Periodic(t, dispatch, r, start + (i + 1) * iv / p, iv).arm();
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        // CPU is measured from the end of warm-up on.
        if (!r.warmed.await(2 * iv + 10_000_000_000L, TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("no firing after warm-up: " + design + " " + p);
        }
        var threads0 = threadCpu();
        long cpu0 = os.getProcessCpuTime(), cs0 = contextSwitches();
        if (!r.done.await(3L * samples * spacingNs + 2 * iv + 10_000_000_000L, TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("timed out: " + design + " " + p);
        }
        long cpu = threads0 != null ? threadCpuSince(threads0) : -1;
        if (cpu < 0) { // no /proc: the process CPU time, in clock ticks (10 ms)
            cpu = os.getProcessCpuTime() - cpu0;
        }
        double cs = (double) (contextSwitches() - cs0) / samples;
        int threads = timers.stream().mapToInt(ScheduledThreadPoolExecutor::getPoolSize).sum();
        if (dispatch != null) {
            threads += ((ThreadPoolExecutor) dispatch).getPoolSize();
        }
        for (var t : timers) {
            t.shutdownNow();
        }
        if (dispatch != null) {
            dispatch.shutdownNow();
        }
        if (tails != null) {
            long pid = ProcessHandle.current().pid();
            try (var w = new java.io.PrintWriter(new java.io.FileWriter(tails, true))) {
                for (int i = 0; i < samples; i++) {
                    w.printf("jdk/%s/%d,%d,%d,%d,%d%n", design, p, r.dues[i], r.dues[i] + r.late[i], r.dues[i] + r.delay[i], -pid);
                }
            }
        }
        Arrays.sort(r.delay);
        Arrays.sort(r.late);
        Arrays.sort(r.hop);
        System.out.printf("BenchmarkTrigger/design=%s/pipelines=%d-%d \t%d\t%d cpu-ns/op\t%.3f ctxsw/op\t%d goroutines\t%d hop-p50-ns\t%d hop-p99-ns\t%d p50-ns\t%d p99-ns\t%d p999-ns\t%d timer-late-p50-ns\t%d timer-late-p99-ns%n",
                design, p, cores, samples, cpu / samples, cs, threads, q(r.hop, .5), q(r.hop, .99),
                q(r.delay, .5), q(r.delay, .99), q(r.delay, .999), q(r.late, .5), q(r.late, .99));
    }

    // threadCpu is the time on CPU so far of each of the process's live
    // threads, in nanoseconds, by thread id: field 1 of
    // /proc/self/task/TID/schedstat, the read the Go side makes around the
    // same window (bench/stats_test.go threadCPU), so that both sides count
    // CPU with one clock; OperatingSystemMXBean.getProcessCpuTime is
    // times(2), in 10 ms clock ticks (a multiple of 10 µs per firing at
    // 1000 samples). Null where /proc cannot be read.
    static java.util.Map<Long, Long> threadCpu() {
        var out = new java.util.HashMap<Long, Long>();
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (var t : (Iterable<java.nio.file.Path>) tasks::iterator) {
                try {
                    String s = java.nio.file.Files.readString(t.resolve("schedstat"));
                    out.put(Long.parseLong(t.getFileName().toString()), Long.parseLong(s.substring(0, s.indexOf(' '))));
                } catch (java.io.IOException e) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
        return out;
    }

    // threadCpuSince is the CPU time the process's threads spent since start
    // (a threadCpu reading): each live thread's time less its time at start;
    // a thread born since counts whole, one that ended since (a JIT compiler
    // thread the JVM retired) takes its time in the window with it. -1
    // where /proc cannot be read.
    static long threadCpuSince(java.util.Map<Long, Long> start) {
        var now = threadCpu();
        if (now == null) {
            return -1;
        }
        long d = 0;
        for (var e : now.entrySet()) {
            d += e.getValue() - start.getOrDefault(e.getKey(), 0L);
        }
        return d;
    }

    // contextSwitches is the process's context switches so far, voluntary and
    // involuntary, summed over its live threads (/proc/self/task/*/status; a
    // thread that ended meanwhile takes its count with it), as the Go side's
    // getrusage figure counts them; -1 where /proc cannot be read.
    static long contextSwitches() {
        long n = 0;
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (var t : (Iterable<java.nio.file.Path>) tasks::iterator) {
                try {
                    for (var line : java.nio.file.Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (java.io.IOException e) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (java.io.IOException e) {
            return -1;
        }
        return n;
    }

    // idle measures one design x pipelines x interval cell of the idle mode.
    static void idle(String design, int p, long iv) throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        long start = System.nanoTime();
        Run r = new Run(start, 0);
        List<ScheduledThreadPoolExecutor> timers = new ArrayList<>();
        ExecutorService dispatch = null;
        int bound = Math.max(8, 2 * cores);
        if (!design.equals("per-pipeline")) {
            timers.add(new ScheduledThreadPoolExecutor(2));
        }
        if (design.equals("shared")) {
            dispatch = new ThreadPoolExecutor(bound, bound, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
            ((ThreadPoolExecutor) dispatch).allowCoreThreadTimeOut(true);
        }
        for (int i = 0; i < p; i++) {
            ScheduledThreadPoolExecutor t;
            if (design.equals("per-pipeline")) {
                t = new ScheduledThreadPoolExecutor(2);
                timers.add(t);
            } else {
                t = timers.get(0);
            }
            new Periodic(t, dispatch, r, start + (i + 1) * iv / p, iv).arm();
        }
        TimeUnit.NANOSECONDS.sleep(iv); // warm-up: every pipeline has fired once
        System.gc();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long gc0 = gcCount(), logAt = logSize(), fired0 = r.seen.get();
        long sw0 = contextSwitches();
        long cpu0 = os.getProcessCpuTime(), t0 = System.nanoTime();
        TimeUnit.NANOSECONDS.sleep((long) (idleSeconds * 1e9));
        long cpu = os.getProcessCpuTime() - cpu0, el = System.nanoTime() - t0;
        long sw1 = contextSwitches();
        long fired = r.seen.get() - fired0, gcs = gcCount() - gc0;
        long[] stw = safepoints(logAt);
        long[] st = procStatus();
        for (var t : timers) {
            t.shutdownNow();
        }
        if (dispatch != null) {
            dispatch.shutdownNow();
        }
        String ivName = iv % 1_000_000_000L == 0 ? (iv / 1_000_000_000L) + "s" : (iv / 1_000_000L) + "ms";
        System.out.printf("BenchmarkIdleMember/env=jdk/design=%s/pipelines=%d/interval=%s-%d \t1\t%.3f cpu-%%\t%.2f firings/s\t%.2f ctxsw/s\t%d gc-cycles\t%.3f rss-MiB\t%d stw-max-ns\t%d stw-stopping-max-ns\t%d threads%n",
                design, p, ivName, cores, 100.0 * cpu / el, fired * 1e9 / el, (sw1 - sw0) * 1e9 / el, gcs, st[1] / 1048576.0, stw[0], stw[1], st[0]);
    }

    static long gcCount() {
        long n = 0;
        for (var g : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, g.getCollectionCount());
        }
        return n;
    }

    static long logSize() {
        return safepointLog == null ? 0 : new java.io.File(safepointLog).length();
    }

    // safepoints returns the longest "Total" and "Reaching safepoint" (ns)
    // of the -Xlog:safepoint lines written since offset from.
    static long[] safepoints(long from) throws java.io.IOException {
        long[] out = {0, 0};
        if (safepointLog == null) {
            return out;
        }
        try (var f = new java.io.RandomAccessFile(safepointLog, "r")) {
            f.seek(from);
            for (String line; (line = f.readLine()) != null; ) {
                out[0] = Math.max(out[0], field(line, "Total: "));
                out[1] = Math.max(out[1], field(line, "Reaching safepoint: "));
            }
        }
        return out;
    }

    static long field(String line, String key) {
        int i = line.indexOf(key);
        if (i < 0) {
            return 0;
        }
        int j = line.indexOf(' ', i + key.length());
        return Long.parseLong(line.substring(i + key.length(), j < 0 ? line.length() : j));
    }

    // procStatus returns the process's threads and VmRSS in bytes.
    static long[] procStatus() throws java.io.IOException {
        long[] out = {0, 0};
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
            String[] kv = line.split(":\\s+");
            if (kv.length < 2) {
                continue;
            }
            if (kv[0].equals("Threads")) {
                out[0] = Long.parseLong(kv[1].trim());
            } else if (kv[0].equals("VmRSS")) {
                out[1] = Long.parseLong(kv[1].trim().split("\\s+")[0]) * 1024;
            }
        }
        return out;
    }

    // q is the nearest-rank quantile of sorted xs, as bench/stats_test.go.
    static long q(long[] xs, double q) {
        int i = (int) Math.ceil(q * xs.length) - 1;
        return xs[Math.min(Math.max(i, 0), xs.length - 1)];
    }

    static final class Periodic implements Runnable {
        final ScheduledThreadPoolExecutor timer;
        final ExecutorService dispatch;
        final Run r;
        final long iv;
        long due;

        Periodic(ScheduledThreadPoolExecutor timer, ExecutorService dispatch, Run r, long first, long iv) {
            this.timer = timer;
            this.dispatch = dispatch;
            this.r = r;
            this.due = first;
            this.iv = iv;
        }

        void arm() {
            try {
                timer.schedule(this, due - System.nanoTime(), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // shut down
            }
        }

        @Override
        public void run() {
            long fired = System.nanoTime();
            long thisDue = due;
            Runnable body = () -> {
                long started = System.nanoTime();
                due = thisDue + iv;
                arm();
                r.record(thisDue, fired, started);
            };
            if (dispatch == null) {
                body.run();
            } else {
                try {
                    dispatch.execute(body);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    // shut down
                }
            }
        }
    }
}
