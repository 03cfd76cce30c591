import type { ChatCompletion } from '../../modules/providers/domain/chat-completion';
import { ResponseCache } from '../../modules/chat/ports/response-cache';

/** A bounded in-memory LRU of completions (no Redis): the least recently used entry goes first. */
export class MemoryResponseCache extends ResponseCache {
  private readonly entries = new Map<string, { completion: ChatCompletion; expiresAt: number }>();

  constructor(
    private readonly capacity = 1_000,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  get(key: string): Promise<ChatCompletion | null> {
    const entry = this.entries.get(key);
    if (!entry || entry.expiresAt <= this.now()) {
      if (entry) this.entries.delete(key);
      return Promise.resolve(null);
    }
    // Re-inserting moves the entry to the young end of the Map's insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return Promise.resolve(entry.completion);
  }

  set(key: string, completion: ChatCompletion, ttlSecs: number): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, { completion, expiresAt: this.now() + ttlSecs * 1000 });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return Promise.resolve();
  }
}
