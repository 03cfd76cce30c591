import type { A2ATaskRecord } from '../domain/a2a-task';
import type { TaskState } from '../domain/task-state';

/**
 * A2A task records (spec 3.1, 8: they live 10 minutes from the last state change): in Redis when
 * configured, so any replica can answer for a task, else in this instance's memory. Fails hard:
 * a store that cannot answer throws, and the caller answers -32603, never a half-written task.
 */
export abstract class TaskStore {
  /** Stores a new task for ttlMs. Throws when the store cannot (the caller answers -32603). */
  abstract create(task: A2ATaskRecord, ttlMs: number): Promise<void>;

  /** The task, or null when unknown or expired (-32001). */
  abstract get(id: string): Promise<A2ATaskRecord | null>;

  /** Replaces the task only if its stored state is still `expected` (atomic compare-and-set), resetting the TTL; false otherwise (changed meanwhile or expired). */
  abstract replace(task: A2ATaskRecord, expected: TaskState, ttlMs: number): Promise<boolean>;
}

/** The per-task settlement lock (spec 3.1, 4.8): one payment or cancel at a time on a task, across replicas when shared. */
export abstract class TaskLocks {
  /** The settlement lock of one task: a token when taken, null when another holder has it. Held at most ttlMs. */
  abstract acquire(taskId: string, ttlMs: number): Promise<string | null>;

  /** Gives the lock back if `token` still holds it; a lock that has lapsed or passed to another holder is left alone. */
  abstract release(taskId: string, token: string): Promise<void>;
}
