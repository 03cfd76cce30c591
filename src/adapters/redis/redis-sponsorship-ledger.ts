import type { Redis } from 'ioredis';
import { SponsorshipLedger, type SponsorshipBound, type SponsorshipCharge } from '../../modules/payments/ports/sponsorship-ledger';
import type { MemorySponsorshipLedger } from '../memory/memory-sponsorship-ledger';

// All bounds checked, then all counted, in one script: concurrent charges cannot overshoot together.
// Totals go back as '%.0f' strings: Lua's tostring would print 1e14 and above in exponent form.
const CHARGE = `
local lamports = tonumber(ARGV[1])
local totals = {}
for i = 1, #KEYS do totals[i] = tonumber(redis.call('GET', KEYS[i]) or '0') end
for i = 1, #KEYS do
  if totals[i] + lamports > tonumber(ARGV[i + 2]) then
    local shown = {}
    for j = 1, #KEYS do shown[j] = string.format('%.0f', totals[j]) end
    return {i, shown}
  end
end
local after = {}
for i = 1, #KEYS do
  after[i] = string.format('%.0f', redis.call('INCRBY', KEYS[i], lamports))
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
return {0, after}`;

// Never below zero, and never recreating a counter that has lapsed.
const REFUND = `
for i = 1, #KEYS do
  local total = tonumber(redis.call('GET', KEYS[i]) or '0')
  if total > 0 then redis.call('DECRBY', KEYS[i], math.min(total, tonumber(ARGV[1]))) end
end
return 1`;

/**
 * Sponsorship counters shared by every instance. This instance's memory ledger keeps the highest
 * totals Redis reported, and counts while Redis fails: a bound already spent stays spent, and
 * the bounds then hold per replica from where they stood. A refund goes only to the ledger that
 * took the charge.
 */
export class RedisSponsorshipLedger extends SponsorshipLedger {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: MemorySponsorshipLedger,
  ) {
    super();
  }

  async charge(window: number, bounds: readonly SponsorshipBound[], lamports: bigint, windowMs: number): Promise<SponsorshipCharge> {
    const counters = bounds.map((bound) => bound.key);
    const keys = counters.map((counter) => key(window, counter));
    let reply: [number, string[]];
    try {
      // Kept two windows, so a refund late in one still finds its counter.
      reply = (await this.redis.eval(CHARGE, keys.length, ...keys, lamports.toString(), 2 * windowMs, ...bounds.map((bound) => bound.limit.toString()))) as [number, string[]];
    } catch {
      return this.fallback.charge(window, bounds, lamports);
    }
    const [refused, shown] = reply;
    const totals = shown.map(BigInt);
    this.fallback.raise(window, counters, totals);
    if (refused !== 0) return { charged: false, refusedBy: refused - 1, totals };
    const refund = async () => {
      this.fallback.lower(window, counters, lamports);
      // Unreachable, Redis keeps the charge: its bounds err on the side of sponsoring less.
      await this.redis.eval(REFUND, keys.length, ...keys, lamports.toString()).catch(() => undefined);
    };
    return { charged: true, totals, refund };
  }

  async total(window: number, counter: string): Promise<bigint> {
    try {
      return BigInt((await this.redis.get(key(window, counter))) ?? 0);
    } catch {
      return this.fallback.total(window, counter);
    }
  }
}

function key(window: number, counter: string): string {
  return `gw:sp:${window}:${counter}`;
}
