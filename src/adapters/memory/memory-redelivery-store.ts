import type { KeptAnswer } from '../../modules/chat/ports/redelivery-store';
import { RedeliveryStore } from '../../modules/chat/ports/redelivery-store';

/** 64 MiB of kept answers at most: the oldest go first when more arrive. */
const DEFAULT_CAPACITY_BYTES = 64 * 1024 * 1024;

/** Kept answers in this process, bounded in bytes (each counted as its JSON length), oldest evicted first. */
export class MemoryRedeliveryStore extends RedeliveryStore {
  private readonly entries = new Map<string, { answer: KeptAnswer; bytes: number; expiresAt: number }>();
  private bytes = 0;

  constructor(
    private readonly capacityBytes = DEFAULT_CAPACITY_BYTES,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  keep(replayKey: string, answer: KeptAnswer, ttlMs: number): Promise<void> {
    const bytes = JSON.stringify(answer).length;
    this.remove(replayKey);
    if (bytes <= this.capacityBytes) {
      this.entries.set(replayKey, { answer, bytes, expiresAt: this.now() + ttlMs });
      this.bytes += bytes;
      for (const key of this.entries.keys()) {
        if (this.bytes <= this.capacityBytes) break;
        this.remove(key);
      }
    }
    return Promise.resolve();
  }

  find(replayKey: string): Promise<KeptAnswer | null> {
    const entry = this.entries.get(replayKey);
    if (entry && entry.expiresAt <= this.now()) this.remove(replayKey);
    return Promise.resolve(entry && entry.expiresAt > this.now() ? entry.answer : null);
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
