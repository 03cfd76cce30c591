import { randomUUID } from 'node:crypto';
import type { A2ATaskRecord } from '../../modules/a2a/domain/a2a-task';
import type { TaskState } from '../../modules/a2a/domain/task-state';
import { TaskLocks, TaskStore } from '../../modules/a2a/ports/task-store';

/** 100,000 tasks at most: unpaid quotes cost a client nothing, so their number must be bounded. */
const DEFAULT_CAPACITY = 100_000;
/** And their size: the user's text dominates a task, at up to two bytes a character. */
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
const TASK_OVERHEAD_BYTES = 2048;

interface Entry<T> {
  value: T;
  expiresAt: number;
  bytes: number;
}

/** What the map may give up when full: nothing (locks), or some values (unpaid quotes); and what each value weighs. */
interface MapPolicy<T> {
  evictable: (value: T) => boolean;
  bytes: (value: T) => number;
  maxBytes: number;
}

/**
 * Entries that lapse after their TTL, bounded in number and in bytes. Map order is the order of
 * the last write (a write re-inserts), so the first entry is the one unchanged the longest. When
 * full, the expired go first, then the oldest the policy lets go; when that is not enough a new
 * key is refused, while a key already present is always rewritten (a paid task moving on must not
 * fail for room). `nextExpiry` (no entry expires before it) spares a full scan on every insert while
 * the map stays full of live entries.
 */
class ExpiringMap<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private nextExpiry = Infinity;
  private bytes = 0;

  constructor(
    private readonly capacity: number,
    private readonly now: () => number,
    private readonly policy: MapPolicy<T>,
  ) {}

  get(key: string): T | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.expiresAt > this.now()) return entry.value;
    this.delete(key);
    return null;
  }

  /** False when a new key finds the map full of entries it may not give up. */
  set(key: string, value: T, ttlMs: number): boolean {
    const present = this.entries.has(key);
    this.delete(key);
    const bytes = this.policy.bytes(value);
    if (!present && !this.makeRoom(bytes)) return false;
    const expiresAt = this.now() + ttlMs;
    this.entries.set(key, { value, expiresAt, bytes });
    this.bytes += bytes;
    this.nextExpiry = Math.min(this.nextExpiry, expiresAt);
    return true;
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private full(incoming: number): boolean {
    return this.entries.size >= this.capacity || this.bytes + incoming > this.policy.maxBytes;
  }

  private makeRoom(incoming: number): boolean {
    const now = this.now();
    if (this.full(incoming) && this.nextExpiry <= now) {
      this.nextExpiry = Infinity;
      for (const [key, entry] of this.entries) {
        if (entry.expiresAt <= now) this.delete(key);
        else this.nextExpiry = Math.min(this.nextExpiry, entry.expiresAt);
      }
    }
    for (const [key, entry] of this.entries) {
      if (!this.full(incoming)) break;
      if (this.policy.evictable(entry.value)) this.delete(key);
    }
    return !this.full(incoming);
  }
}

/**
 * A2A tasks in this process (no REDIS_URL): only this instance can answer for them. Records are
 * copied in and out, so a caller editing its copy changes nothing until it replaces the task.
 */
export class MemoryTaskStore extends TaskStore {
  private readonly tasks: ExpiringMap<A2ATaskRecord>;

  constructor(capacity = DEFAULT_CAPACITY, now: () => number = Date.now, maxBytes = DEFAULT_MAX_BYTES) {
    super();
    // Only unpaid quotes give way when full (the oldest first): a task that was paid for keeps its record until its TTL, whatever a flood of quotes does.
    this.tasks = new ExpiringMap(capacity, now, {
      evictable: (task) => task.state === 'input-required',
      bytes: (task) => TASK_OVERHEAD_BYTES + 2 * (task.request.text.length + (task.output?.length ?? 0)),
      maxBytes,
    });
  }

  create(task: A2ATaskRecord, ttlMs: number): Promise<void> {
    // Ids are 128 random bits, so a clash means a caller reused one: never overwrite a task.
    if (this.tasks.get(task.id) !== null) return Promise.reject(new Error(`task ${task.id} already exists`));
    if (!this.tasks.set(task.id, structuredClone(task), ttlMs)) return Promise.reject(new Error('the task store is full of paid tasks'));
    return Promise.resolve();
  }

  get(id: string): Promise<A2ATaskRecord | null> {
    const task = this.tasks.get(id);
    return Promise.resolve(task === null ? null : structuredClone(task));
  }

  // Synchronous between the read and the write, so concurrent replaces cannot both see `expected`.
  replace(task: A2ATaskRecord, expected: TaskState, ttlMs: number): Promise<boolean> {
    const stored = this.tasks.get(task.id);
    if (stored === null || stored.state !== expected) return Promise.resolve(false);
    this.tasks.set(task.id, structuredClone(task), ttlMs);
    return Promise.resolve(true);
  }
}

/** Settlement locks of this process's tasks, each lapsing after its TTL so a crashed holder cannot keep a task forever. */
export class MemoryTaskLocks extends TaskLocks {
  private readonly locks: ExpiringMap<string>;

  constructor(capacity = DEFAULT_CAPACITY, now: () => number = Date.now) {
    super();
    // Evicting a held lock would let two settlements run on one task: when full, refuse (the caller answers -32603, retryable).
    this.locks = new ExpiringMap(capacity, now, { evictable: () => false, bytes: () => 0, maxBytes: Infinity });
  }

  acquire(taskId: string, ttlMs: number): Promise<string | null> {
    if (this.locks.get(taskId) !== null) return Promise.resolve(null);
    const token = randomUUID();
    return Promise.resolve(this.locks.set(taskId, token, ttlMs) ? token : null);
  }

  release(taskId: string, token: string): Promise<void> {
    if (this.locks.get(taskId) === token) this.locks.delete(taskId);
    return Promise.resolve();
  }
}
