import { setTimeout as sleep } from 'node:timers/promises';
import type { ChannelLocks } from '../ports/channel-locks';

/** How long a draw or a close waits for its channel's lock before the channel is busy, and how often it looks. */
const LOCK_WAIT_MS = 250;
const LOCK_POLL_MS = 10;

/**
 * A channel's draw lock, waited for a moment (docs/decisions.md, "Channels"): a client's next
 * request (or its close) follows the answer to its last draw, whose record, and the lock's
 * release, may trail the answer's last byte by milliseconds. A draw still being served is busy.
 */
export async function channelLock(locks: ChannelLocks, channelId: string, ttlMs: number): Promise<string | null> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const token = await locks.acquire(channelId, ttlMs);
    if (token !== null || Date.now() >= deadline) return token;
    await sleep(LOCK_POLL_MS);
  }
}
