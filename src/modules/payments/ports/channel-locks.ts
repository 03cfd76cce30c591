/**
 * A channel's draw lock (docs/decisions.md, "Channels"): one draw, or the close, at a time
 * on a channel, across replicas. Held for the whole serve.
 */
export abstract class ChannelLocks {
  /** A token when taken, null while another holder has it; held at most `ttlMs`. Rejects while the shared store fails. */
  abstract acquire(channelId: string, ttlMs: number): Promise<string | null>;

  /** Gives the lock back if `token` still holds it; a lock that lapsed or passed to another holder is left alone. */
  abstract release(channelId: string, token: string): Promise<void>;
}
