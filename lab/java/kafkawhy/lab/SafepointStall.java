package kafkawhy.lab;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;

/**
 * A Java agent that, on request, makes the JVM's safepoint synchronisation wait for seconds, the way a
 * production broker stalls when one thread cannot reach a safepoint (the seed incident's "Stopping
 * threads took: 3.3 seconds").
 *
 * <p>It compiles a nested counted int loop with C2; with -XX:-UseCountedLoopSafepoints and
 * -XX:LoopStripMiningIter=0 on the command line such loops carry no safepoint poll. A thread runs the
 * loop for the requested time while another asks the VM for a thread dump, a VM operation that needs a
 * safepoint: every other Java thread parks at its next poll and waits for the looping one, so the whole
 * broker (network threads, the ZooKeeper client's heartbeat) is frozen and the safepoint log records
 * "Reaching safepoint: N ns" with N in seconds.
 *
 * <p>Argument: the path of a trigger file. Writing a number of milliseconds into it starts one stall;
 * the agent deletes the trigger and, when the stall is over, writes "requestedMs spunMs" to
 * trigger + ".done".
 */
public final class SafepointStall {
  private static volatile long sink;
  private static final int INNER = 10_000_000;
  /** Inner trip count during a stall: about 1 ms of work between two reads of the clock. */
  private static final int CHUNK = 1_000_000;

  private SafepointStall() {}

  public static void premain(String args) {
    Path trigger = Paths.get(args == null || args.isEmpty() ? "safepoint-stall.trigger" : args);
    Thread watcher = new Thread(() -> watch(trigger), "safepoint-stall-watcher");
    watcher.setDaemon(true);
    watcher.start();
  }

  /**
   * Counted int loops only: with the flags above, C2 emits no safepoint poll in either. The clock is
   * read once per inner loop (System.nanoTime is an intrinsic leaf call, not a safepoint), so the stall
   * lasts as long as asked whatever else the CPUs are doing.
   */
  static long spin(int outer, int inner, long deadlineNanos) {
    long x = 1;
    for (int j = 0; j < outer; j++) {
      for (int i = 0; i < inner; i++) {
        x = x * 6364136223846793005L + (i ^ j);
      }
      if (System.nanoTime() - deadlineNanos > 0) {
        break;
      }
    }
    return x;
  }

  private static void watch(Path trigger) {
    // Warm up with varied trip counts so C2 compiles spin() without assuming either loop is short.
    for (int k = 0; k < 30_000; k++) {
      sink += spin(1 + (k % 3), 200 + (k % 7), k % 2 == 0 ? Long.MAX_VALUE : System.nanoTime());
    }
    double nsPerIteration = calibrate();
    log("ready, " + String.format("%.3f", nsPerIteration) + " ns per iteration");
    for (;;) {
      try {
        Thread.sleep(100);
        if (!Files.exists(trigger)) {
          continue;
        }
        String text = new String(Files.readAllBytes(trigger), StandardCharsets.UTF_8).trim();
        Files.deleteIfExists(trigger);
        long requestedMs = Long.parseLong(text.isEmpty() ? "8000" : text);
        // Calibrate again now: the loop's speed depends on what else the CPUs are doing.
        nsPerIteration = calibrate();
        long spunMs = stall(requestedMs, nsPerIteration);
        Path done = Paths.get(trigger + ".done");
        Path tmp = Paths.get(trigger + ".done.tmp");
        Files.write(tmp, (requestedMs + " " + spunMs + "\n").getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, done, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        log("trigger failed: " + e);
      }
    }
  }

  /** Nanoseconds per inner iteration, measured over about 50 ms of the compiled loop. */
  private static double calibrate() {
    long t0 = System.nanoTime();
    sink += spin(4, INNER, System.nanoTime() + 10_000_000_000L);
    return Math.max(0.05, (System.nanoTime() - t0) / (4.0 * INNER));
  }

  private static long stall(long requestedMs, double nsPerIteration) throws InterruptedException {
    // The deadline ends the loop; fifty times the calibrated trip count is only a ceiling, since the
    // calibration may have run while the CPUs were busier than during the stall.
    long iterations = (long) (50 * requestedMs * 1_000_000.0 / nsPerIteration);
    int outer = (int) Math.max(1, Math.min(Integer.MAX_VALUE, iterations / CHUNK));
    long[] spun = new long[1];
    Thread spinner = new Thread(() -> {
      long start = System.nanoTime();
      sink += spin(outer, CHUNK, start + requestedMs * 1_000_000L);
      spun[0] = (System.nanoTime() - start) / 1_000_000;
    }, "safepoint-stall-spinner");
    spinner.setDaemon(true);
    spinner.start();
    // Ask for the safepoint as soon as the loop runs: the longer the wait, the likelier the VM thread
    // starts some other operation first (a handshake waits for the loop too, but is not a safepoint).
    Thread.sleep(20);
    ManagementFactory.getThreadMXBean().dumpAllThreads(false, false);
    spinner.join();
    log("stalled safepoint synchronisation for " + spun[0] + " ms (requested " + requestedMs + " ms)");
    return spun[0];
  }

  private static void log(String message) {
    System.err.println("safepoint-stall: " + message);
  }
}
