import type { Redis } from 'ioredis';
import type { A2ATaskRecord } from '../../modules/a2a/domain/a2a-task';
import type { TaskState } from '../../modules/a2a/domain/task-state';
import { TaskStore } from '../../modules/a2a/ports/task-store';

/** Where tasks and locks live unless told otherwise: the tests pass a prefix of their own so the shared Redis is never touched outside it. */
export const A2A_KEY_PREFIX = 'gw:a2a:';

// Compare-and-set in one script: between a GET and a SET from the client another replica could
// have moved the task (a cancel racing a payment), and both would believe they won.
// A record that is not ours to read (no JSON, no state) is never overwritten.
const REPLACE = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, stored = pcall(cjson.decode, current)
if not ok or type(stored) ~= 'table' or stored.state ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/**
 * A2A tasks shared by every replica through Redis, as JSON under `gw:a2a:task:<id>`, expiring with
 * the TTL. No memory fallback, unlike the other shared-state ports: a task written where other
 * replicas cannot see it would be unpayable or payable twice, so a failing Redis throws and the
 * caller answers -32603 (spec 7).
 */
export class RedisTaskStore extends TaskStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = A2A_KEY_PREFIX,
  ) {
    super();
  }

  async create(task: A2ATaskRecord, ttlMs: number): Promise<void> {
    // NX: a task is never overwritten by its creation (ids are 128 random bits, so a clash is a caller's bug).
    const reply = await this.redis.set(this.key(task.id), JSON.stringify(task), 'PX', ttlMs, 'NX');
    if (reply !== 'OK') throw new Error(`task ${task.id} already exists`);
  }

  async get(id: string): Promise<A2ATaskRecord | null> {
    const value = await this.redis.get(this.key(id));
    return value === null ? null : (JSON.parse(value) as A2ATaskRecord);
  }

  async replace(task: A2ATaskRecord, expected: TaskState, ttlMs: number): Promise<boolean> {
    const reply = await this.redis.eval(REPLACE, 1, this.key(task.id), expected, JSON.stringify(task), ttlMs);
    return reply === 1;
  }

  private key(id: string): string {
    return `${this.prefix}task:${id}`;
  }
}
