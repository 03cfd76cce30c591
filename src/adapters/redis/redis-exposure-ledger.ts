import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { ExposureLedger, LANDED_KEEP_MS, type ExposureEntry } from '../../modules/payments/ports/exposure-ledger';
import type { MemoryExposureLedger } from '../memory/memory-exposure-ledger';

// One hash per source: field `v` is its version, `d:<id>` a debit as "amount|landedAt|expiresAt"
// (landedAt 0 while in flight). Amounts are Lua numbers, exact up to 2^53 atomic units (9 billion
// USDC): balances above are read as 2^53 - 1 (less than they are, so never more is admitted), and
// a single debit above is refused. Expiry uses the server's clock, shared by every instance.
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const ADMIT = `${NOW}
local readVersion = tonumber(ARGV[3])
local exposed = tonumber(ARGV[2])
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local field = fields[i]
  if field ~= 'v' then
    local amount, landedAt, expiresAt = string.match(fields[i + 1], '^(%d+)|(%d+)|(%d+)$')
    if tonumber(expiresAt) <= now then
      redis.call('HDEL', KEYS[1], field)
    elseif tonumber(landedAt) == 0 or tonumber(landedAt) > readVersion then
      exposed = exposed + tonumber(amount)
    end
  end
end
if exposed > tonumber(ARGV[4]) then return 0 end
local ttl = tonumber(ARGV[5])
redis.call('HSET', KEYS[1], 'd:' .. ARGV[1], ARGV[2] .. '|0|' .. (now + ttl))
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`;

const LANDED = `${NOW}
local version = redis.call('HINCRBY', KEYS[1], 'v', 1)
local debit = redis.call('HGET', KEYS[1], 'd:' .. ARGV[1])
if debit then
  local amount = string.match(debit, '^(%d+)|')
  redis.call('HSET', KEYS[1], 'd:' .. ARGV[1], amount .. '|' .. version .. '|' .. (now + tonumber(ARGV[2])))
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return version`;

const LUA_EXACT = 2n ** 53n - 1n;
/** Between two tries of the steps Redis missed. */
const RETRY_MS = 1_000;
/** Missed steps kept for retry; past this, a debit left in flight in Redis lapses with its TTL. */
const MAX_MISSED = 10_000;

/**
 * In-flight debits shared by every instance, each step one script. Every debit this instance
 * admits is also kept in its memory ledger, which answers while Redis fails: exposure is then
 * bounded per replica rather than every paid request being refused, and the debits already in
 * flight still count. A landing or release Redis misses is retried until Redis takes it, so a
 * payer is not held at its old exposure once Redis is back.
 */
export class RedisExposureLedger extends ExposureLedger {
  /** Per debit id, the last step Redis missed. */
  private readonly missed = new Map<string, () => Promise<unknown>>();
  private retrying: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly fallback: MemoryExposureLedger,
  ) {
    super();
  }

  async version(source: string): Promise<number> {
    try {
      return Number((await this.redis.hget(key(source), 'v')) ?? 0);
    } catch {
      return this.fallback.version(source);
    }
  }

  async admit(entry: ExposureEntry, balance: bigint, readVersion: number, ttlMs: number): Promise<boolean> {
    if (entry.amount > LUA_EXACT) return false;
    let admitted: unknown;
    try {
      const readable = balance > LUA_EXACT ? LUA_EXACT : balance;
      admitted = await this.redis.eval(ADMIT, 1, key(entry.source), entry.id, entry.amount.toString(), readVersion, readable.toString(), ttlMs);
    } catch {
      return this.fallback.admit(entry, balance, readVersion, ttlMs);
    }
    if (admitted !== 1) return false;
    this.fallback.record(entry, ttlMs);
    return true;
  }

  async landed(source: string, id: string): Promise<void> {
    await this.fallback.landed(source, id);
    await this.shared(id, () => this.redis.eval(LANDED, 1, key(source), id, LANDED_KEEP_MS));
  }

  async remove(source: string, id: string): Promise<void> {
    await this.fallback.remove(source, id);
    await this.shared(id, () => this.redis.hdel(key(source), `d:${id}`));
  }

  private async shared(id: string, step: () => Promise<unknown>): Promise<void> {
    this.missed.delete(id);
    try {
      await step();
    } catch {
      if (this.missed.size >= MAX_MISSED) return;
      this.missed.set(id, step);
      this.retrying ??= this.retry().finally(() => (this.retrying = null));
    }
  }

  private async retry(): Promise<void> {
    while (this.missed.size > 0) {
      await sleep(RETRY_MS, undefined, { ref: false });
      for (const [id, step] of this.missed) {
        try {
          await step();
        } catch {
          break;
        }
        // A newer step for the same debit, missed meanwhile, stays owed.
        if (this.missed.get(id) === step) this.missed.delete(id);
      }
    }
  }
}

function key(source: string): string {
  return `gw:xp:${source}`;
}
