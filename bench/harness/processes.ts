import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

// The tests' helper under the name the benchmarks use: they listen on the port, not probe it.

export interface Started {
  child: ChildProcess;
  /** The process's CPU, allocation and RSS so far (meter.ts, loaded into every process started here). */
  meter(): Promise<MeterReading>;
  stop(): Promise<void>;
}

export interface MeterReading {
  /** User and system CPU so far (`process.cpuUsage`). */
  cpuMicros: number;
  /** Bytes allocated on the V8 heap so far. */
  allocatedBytes: number;
  rssBytes: number;
  /** Since the reading before: the longest garbage-collection pause (ms) and the full (mark-compact) collections. */
  longestPauseMs: number;
  fullCollections: number;
  /** Since the reading before: the longest the event loop was blocked (ms, 10 ms resolution). */
  longestLoopDelayMs: number;
}

/** What a process spent: its CPU and allocation between two readings, or summed over several pairs. */
export type MeterSpend = Pick<MeterReading, 'cpuMicros' | 'allocatedBytes'>;

/** What a process cost per request between two readings (or from nothing to a sum of spends): CPU in ms and allocation in KB. */
export function perRequest(before: MeterSpend, after: MeterSpend, requests: number): { cpuMs: number; allocKb: number } {
  return { cpuMs: (after.cpuMicros - before.cpuMicros) / 1000 / requests, allocKb: (after.allocatedBytes - before.allocatedBytes) / 1024 / requests };
}

const METER = join(__dirname, 'meter.js');

/**
 * Starts `node <script>` pinned to a CPU with taskset (the processes under test must not share a
 * core with the load generator), or on every core with `cpu` null (a server of several processes),
 * resolving once `readyUrl` answers any HTTP status. Output is
 * discarded: an access log piped back would cost the load generator's core. `nodeArgs` go to node
 * itself (`--cpu-prof`, which NODE_OPTIONS refuses).
 */
export async function startPinned(script: string, env: Record<string, string>, cpu: number | null, readyUrl: string, args: string[] = [], nodeArgs: string[] = []): Promise<Started> {
  const meterDir = mkdtempSync(join(tmpdir(), 'bench-meter-'));
  const meterFile = join(meterDir, 'readings');
  const node = [process.execPath, ...nodeArgs, '--require', METER, script, ...args];
  const [command, ...argv] = cpu === null ? node : ['taskset', '-c', String(cpu), ...node];
  const child = spawn(command, argv, { env: { ...process.env, ...env, BENCH_METER_FILE: meterFile }, stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${script} exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    if (await answers(readyUrl)) break;
    if (Date.now() > deadline) throw new Error(`${script} did not answer ${readyUrl} within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    meter: () => readMeter(child, meterFile),
    stop: async () => {
      // Already gone (by exit or by signal): its 'exit' has fired and would never fire again.
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(meterDir, { recursive: true, force: true });
    },
  };
}

/** Asks the process for a reading (SIGUSR2) and waits for its line. */
async function readMeter(child: ChildProcess, file: string): Promise<MeterReading> {
  const lines = (): string[] => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  const before = lines().length;
  child.kill('SIGUSR2');
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 5))) {
    const now = lines();
    if (now.length > before) return JSON.parse(now[before]) as MeterReading;
  }
  throw new Error(`no meter reading from process ${child.pid} within 5 s`);
}

async function answers(url: string): Promise<boolean> {
  try {
    await (await fetch(url, { signal: AbortSignal.timeout(1_000) })).arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

/** CPU for the server under test, and CPU for the load generator and the fake, on a 2-core machine. */
export function cpuPlan(): { server: number | null; client: number | null } {
  return availableParallelism() >= 2 ? { server: 0, client: 1 } : { server: null, client: null };
}

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const CLOCK_TICKS_PER_SECOND = 100;

/** A process's user and system CPU so far, in milliseconds (Linux /proc). */
export async function cpuTimeMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Peak resident memory (MB) of a process so far, from /proc (Linux); null elsewhere. */
export async function peakRssMb(pid: number): Promise<number | null> {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Pins the current process (the load generator) to a CPU. */
export function pinSelf(cpu: number | null): void {
  if (cpu === null) return;
  spawn('taskset', ['-pc', String(cpu), String(process.pid)], { stdio: 'ignore' });
}
