import { randomUUID } from 'node:crypto';
import type { A2ATaskRecord } from '../../modules/a2a/domain/a2a-task';
import type { TaskState } from '../../modules/a2a/domain/task-state';
import { TaskLocks, TaskStore } from '../../modules/a2a/ports/task-store';

/** 100,000 tasks at most: unpaid quotes cost a client nothing, so their number must be bounded. */
const DEFAULT_CAPACITY = 100_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * Entries that lapse after their TTL, bounded in number. Map order is the order of the last write
 * (a write re-inserts), so the first entry is the one unchanged the longest. When full, the expired
 * go first, then (with `evictLive`) the oldest; without it the write is refused. `nextExpiry` (no
 * entry expires before it) spares a full scan on every insert while the map stays full of live entries.
 */
class ExpiringMap<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private nextExpiry = Infinity;

  constructor(
    private readonly capacity: number,
    private readonly now: () => number,
    private readonly evictLive: boolean,
  ) {}

  get(key: string): T | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.expiresAt > this.now()) return entry.value;
    this.entries.delete(key);
    return null;
  }

  /** False when full of live entries and not allowed to evict them. */
  set(key: string, value: T, ttlMs: number): boolean {
    this.entries.delete(key);
    if (this.entries.size >= this.capacity && !this.makeRoom()) return false;
    const expiresAt = this.now() + ttlMs;
    this.entries.set(key, { value, expiresAt });
    this.nextExpiry = Math.min(this.nextExpiry, expiresAt);
    return true;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  private makeRoom(): boolean {
    const now = this.now();
    if (this.nextExpiry <= now) {
      this.nextExpiry = Infinity;
      for (const [key, entry] of this.entries) {
        if (entry.expiresAt <= now) this.entries.delete(key);
        else this.nextExpiry = Math.min(this.nextExpiry, entry.expiresAt);
      }
    }
    if (!this.evictLive) return this.entries.size < this.capacity;
    for (const key of this.entries.keys()) {
      if (this.entries.size < this.capacity) break;
      this.entries.delete(key);
    }
    return true;
  }
}

/**
 * A2A tasks in this process (no REDIS_URL): only this instance can answer for them. Records are
 * copied in and out, so a caller editing its copy changes nothing until it replaces the task.
 */
export class MemoryTaskStore extends TaskStore {
  private readonly tasks: ExpiringMap<A2ATaskRecord>;

  constructor(capacity = DEFAULT_CAPACITY, now: () => number = Date.now) {
    super();
    // A task lost to eviction answers -32001, like an expired one; refusing new quotes instead would let unpaid quotes lock everyone out.
    this.tasks = new ExpiringMap(capacity, now, true);
  }

  create(task: A2ATaskRecord, ttlMs: number): Promise<void> {
    // Ids are 128 random bits, so a clash means a caller reused one: never overwrite a task.
    if (this.tasks.get(task.id) !== null) return Promise.reject(new Error(`task ${task.id} already exists`));
    this.tasks.set(task.id, structuredClone(task), ttlMs);
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
    this.locks = new ExpiringMap(capacity, now, false);
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
