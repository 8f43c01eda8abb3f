package ckptsim.upstream;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.seatunnel.engine.server.checkpoint.scheduler.PipelineCheckpointScheduler;
import org.apache.seatunnel.engine.server.checkpoint.scheduler.SharedCheckpointScheduler;

/**
 * Stress reproductions of ckptsim's scheduler-level findings, run on whichever build of
 * SeaTunnel's checkpoint scheduler package is on the class path. Only the package's public API is
 * used (lease, schedule, cancelAll, close and the returned futures).
 *
 * <p>Usage: {@code SchedulerFindings F026|F010 ITERATIONS}. Prints one line: {@code violations
 * BAD ITERATIONS TASKS_UNSETTLED TASKS_SCHEDULED}, where BAD counts the iterations with at least
 * one task that broke the finding's invariant.
 *
 * <ul>
 *   <li>F026: four threads each schedule 250 tasks (delay one hour, so none runs) on one lease
 *       while another thread calls cancelAll in a loop. Once they have stopped, one more cancelAll
 *       runs (the later clean). Invariant: every future is done (cancelled, or ran) afterwards. A
 *       task that cancelAll's trailing clear() removed uncancelled stays armed and out of reach.
 *   <li>F010: on a fresh scheduler, more blocking tasks (delay 0) than the dispatch pool has
 *       threads, plus 16 tasks with a one-hour delay; once a body runs, close(). Invariant: every
 *       future completes (normally, exceptionally or cancelled) within 200 ms of close returning.
 *       Bodies return when interrupted, so only tasks close dropped can stay unsettled.
 * </ul>
 */
public final class SchedulerFindings {
    private static final long SETTLE_BOUND_MS = 200;

    private SchedulerFindings() {}

    public static void main(String[] args) throws Exception {
        int iterations = Integer.parseInt(args[1]);
        long[] r;
        switch (args[0]) {
            case "F026":
                r = cancelAllDropsSchedule(iterations);
                break;
            case "F010":
                r = closeLeavesUnsettled(iterations);
                break;
            default:
                throw new IllegalArgumentException("unknown finding " + args[0]);
        }
        System.out.printf("violations %d %d %d %d%n", r[0], iterations, r[1], r[2]);
    }

    /** Returns {bad iterations, unsettled tasks, scheduled tasks}. */
    static long[] cancelAllDropsSchedule(int iterations) throws InterruptedException {
        final int threads = 4;
        final int perThread = 250;
        long bad = 0;
        long unsettled = 0;
        long scheduled = 0;
        SharedCheckpointScheduler shared = new SharedCheckpointScheduler();
        try {
            for (int i = 0; i < iterations; i++) {
                PipelineCheckpointScheduler lease = shared.lease(1L, i);
                List<ScheduledFuture<?>> futures = race(lease, threads, perThread);
                lease.cancelAll();
                int left = 0;
                for (ScheduledFuture<?> f : futures) {
                    if (!f.isDone()) {
                        left++;
                        f.cancel(false); // clean up the escaped timer entry
                    }
                }
                bad += left > 0 ? 1 : 0;
                unsettled += left;
                scheduled += futures.size();
            }
        } finally {
            shared.close();
        }
        return new long[] {bad, unsettled, scheduled};
    }

    private static List<ScheduledFuture<?>> race(
            PipelineCheckpointScheduler lease, int threads, int perThread)
            throws InterruptedException {
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        List<List<ScheduledFuture<?>>> parts = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger(threads);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<ScheduledFuture<?>> mine = new ArrayList<>(perThread);
            parts.add(mine);
            all.add(
                    new Thread(
                            () -> {
                                awaitQuietly(start);
                                for (int k = 0; k < perThread; k++) {
                                    mine.add(lease.schedule(() -> {}, 1, TimeUnit.HOURS));
                                }
                                running.decrementAndGet();
                            }));
        }
        all.add(
                new Thread(
                        () -> {
                            awaitQuietly(start);
                            while (running.get() > 0) {
                                lease.cancelAll();
                            }
                        }));
        all.forEach(Thread::start);
        start.countDown();
        for (Thread t : all) {
            t.join();
        }
        parts.forEach(futures::addAll);
        return futures;
    }

    /** Returns {bad iterations, unsettled tasks, scheduled tasks}. */
    static long[] closeLeavesUnsettled(int iterations) throws InterruptedException {
        final int blocking = 2 * Runtime.getRuntime().availableProcessors() + 8 + 16;
        final int waiting = 16;
        long bad = 0;
        long unsettled = 0;
        long scheduled = 0;
        for (int i = 0; i < iterations; i++) {
            SharedCheckpointScheduler shared = new SharedCheckpointScheduler();
            PipelineCheckpointScheduler lease = shared.lease(1L, 1);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch never = new CountDownLatch(1);
            List<ScheduledFuture<?>> futures = new ArrayList<>();
            for (int k = 0; k < blocking; k++) {
                futures.add(
                        lease.schedule(
                                () -> {
                                    started.countDown();
                                    awaitQuietly(never);
                                },
                                0,
                                TimeUnit.MILLISECONDS));
            }
            for (int k = 0; k < waiting; k++) {
                futures.add(lease.schedule(() -> {}, 1, TimeUnit.HOURS));
            }
            started.await(5, TimeUnit.SECONDS);
            shared.close();
            int left = unsettledAfter(futures, SETTLE_BOUND_MS);
            bad += left > 0 ? 1 : 0;
            unsettled += left;
            scheduled += futures.size();
        }
        return new long[] {bad, unsettled, scheduled};
    }

    private static int unsettledAfter(List<ScheduledFuture<?>> futures, long boundMs)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMs);
        int left = 0;
        for (ScheduledFuture<?> f : futures) {
            long remaining = Math.max(0, deadline - System.nanoTime());
            try {
                f.get(remaining, TimeUnit.NANOSECONDS);
            } catch (CancellationException | ExecutionException settled) {
                // completed, one way or the other
            } catch (TimeoutException e) {
                left++;
            }
        }
        return left;
    }

    /** Waits for the latch; an interrupt (close's shutdownNow) ends the wait and the body. */
    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
