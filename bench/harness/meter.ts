/**
 * Loaded into a process under test with `node --require dist/bench/harness/meter.js`: on each
 * SIGUSR2 it appends one JSON line to BENCH_METER_FILE with the process's CPU so far
 * (`process.cpuUsage`, user and system, microseconds), the bytes it has allocated on the V8 heap
 * so far, its resident memory, and, since the reading before, its longest collection pause, its
 * number of full collections and its longest event-loop delay. The bench takes a line before and after a scenario and divides
 * the differences by the requests sent (meter-client.ts).
 *
 * V8 keeps no running total of allocation, so one is built: what the heap held at each collection's
 * start, less what it held after the one before, summed (v8.GCProfiler reports both sizes of every
 * collection), plus the growth since the last. Bench-only: nothing in src/ loads it.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';

const file = process.env.BENCH_METER_FILE;
if (file) {
  let allocated = 0;
  let mark = getHeapStatistics().used_heap_size;
  let profiler = new GCProfiler();
  profiler.start();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  process.on('SIGUSR2', () => {
    // The collections since the last reading: the longest pause, and how many were full (mark-compact) ones.
    let longestPauseMs = 0;
    let fullCollections = 0;
    for (const gc of profiler.stop()?.statistics ?? []) {
      allocated += gc.beforeGC.heapStatistics.usedHeapSize - mark;
      mark = gc.afterGC.heapStatistics.usedHeapSize;
      longestPauseMs = Math.max(longestPauseMs, gc.cost / 1000);
      if (gc.gcType === 'MarkSweepCompact') fullCollections += 1;
    }
    const used = getHeapStatistics().used_heap_size;
    allocated += used - mark;
    mark = used;
    profiler = new GCProfiler();
    profiler.start();
    const longestLoopDelayMs = loopDelay.max / 1e6;
    loopDelay.reset();
    const { user, system } = process.cpuUsage();
    appendFileSync(file, `${JSON.stringify({ cpuMicros: user + system, allocatedBytes: allocated, rssBytes: process.memoryUsage.rss(), longestPauseMs, fullCollections, longestLoopDelayMs })}\n`);
  });
}
