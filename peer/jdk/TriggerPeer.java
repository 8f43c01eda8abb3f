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
                default -> throw new IllegalArgumentException("unknown flag " + args[i]);
            }
        }
        System.out.println("peer: jdk");
        System.out.println("jdk: " + System.getProperty("java.vm.name").replace(' ', '-') + "-" + System.getProperty("java.version"));
        System.out.println("goos: linux");
        System.out.println("goarch: amd64");
        System.out.println("pkg: github.com/ckptsim/ckptsim/bench");
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
        long cpu0 = os.getProcessCpuTime();
        if (!r.done.await(3L * samples * spacingNs + 2 * iv + 10_000_000_000L, TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException("timed out: " + design + " " + p);
        }
        long cpu = os.getProcessCpuTime() - cpu0;
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
        System.out.printf("BenchmarkTrigger/design=%s/pipelines=%d-%d \t%d\t%d cpu-ns/op\t%d goroutines\t%d hop-p50-ns\t%d hop-p99-ns\t%d p50-ns\t%d p99-ns\t%d p999-ns\t%d timer-late-p50-ns\t%d timer-late-p99-ns%n",
                design, p, cores, samples, cpu / samples, threads, q(r.hop, .5), q(r.hop, .99),
                q(r.delay, .5), q(r.delay, .99), q(r.delay, .999), q(r.late, .5), q(r.late, .99));
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
