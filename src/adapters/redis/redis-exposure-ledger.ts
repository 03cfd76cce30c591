import type { Redis } from 'ioredis';
import { ExposureLedger, LANDED_KEEP_MS, type ExposureEntry } from '../../modules/payments/ports/exposure-ledger';

// One hash per source: field `v` is its version, `d:<id>` a debit as "amount|landedAt|expiresAt"
// (landedAt 0 while in flight). Amounts are Lua numbers, exact up to 2^53 atomic units (9 billion
// USDC), far above any one token account. Expiry uses the server's clock, shared by every instance.
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

/**
 * In-flight debits shared by every instance, each step one script. While Redis fails, this
 * instance's memory ledger answers: exposure is then bounded per replica rather than every paid
 * request being refused.
 */
export class RedisExposureLedger extends ExposureLedger {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: ExposureLedger,
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
    try {
      const admitted = await this.redis.eval(ADMIT, 1, key(entry.source), entry.id, entry.amount.toString(), readVersion, balance.toString(), ttlMs);
      return admitted === 1;
    } catch {
      return this.fallback.admit(entry, balance, readVersion, ttlMs);
    }
  }

  async landed(source: string, id: string): Promise<void> {
    await this.fallback.landed(source, id);
    await this.redis.eval(LANDED, 1, key(source), id, LANDED_KEEP_MS).catch(() => undefined);
  }

  async remove(source: string, id: string): Promise<void> {
    await this.fallback.remove(source, id);
    await this.redis.hdel(key(source), `d:${id}`).catch(() => undefined);
  }
}

function key(source: string): string {
  return `gw:xp:${source}`;
}
