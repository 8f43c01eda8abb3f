import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

// The Java half of wake-floor (bench/cmd/wakefloor is the Go half): the
// least a periodic timed wake costs on a JDK thread. Modes:
//   park  the main thread parks (LockSupport.parkNanos) to absolute
//         deadlines period apart
//   stpe  a ScheduledThreadPoolExecutor of one thread runs an empty task
//         at a fixed rate (the JDK peer's mechanism, TriggerPeer)
// Usage: java Wake MODE PERIOD_US N
public final class Wake {
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        long period = Long.parseLong(args[1]) * 1000L;
        int n = Integer.parseInt(args[2]);
        long[] late = new long[n];
        if (mode.equals("park")) {
            long next = System.nanoTime();
            for (int i = 0; i < n; i++) {
                next += period;
                for (long d = next - System.nanoTime(); d > 0; d = next - System.nanoTime()) {
                    LockSupport.parkNanos(d);
                }
                late[i] = System.nanoTime() - next;
            }
        } else if (mode.equals("stpe")) {
            ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1);
            CountDownLatch done = new CountDownLatch(1);
            int[] i = {0};
            long[] start = {0};
            Runnable task = () -> {
                if (i[0] < n) {
                    late[i[0]] = System.nanoTime() - (start[0] + i[0] * period);
                    if (++i[0] == n) done.countDown();
                }
            };
            ex.schedule(() -> {}, 0, TimeUnit.NANOSECONDS).get(); // the executor's classes loaded and its thread started
            start[0] = System.nanoTime() + period; // after the lambda's bootstrap
            ex.scheduleAtFixedRate(task, period, period, TimeUnit.NANOSECONDS);
            done.await();
            ex.shutdownNow();
        } else {
            System.err.println("Wake: mode " + mode + ": want park or stpe");
            System.exit(2);
        }
        Arrays.sort(late);
        System.out.printf("mode=%s period=%dus n=%d late-p50=%.1fus late-p99=%.1fus%n", mode, period / 1000, n,
                late[(int) (0.5 * (n - 1))] / 1e3, late[(int) (0.99 * (n - 1))] / 1e3);
    }
}
