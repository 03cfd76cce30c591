import { LRUCache } from 'lru-cache';
import { ResponseCache } from '../../modules/chat/ports/response-cache';
import type { ChatCompletion } from '../../modules/providers/domain/chat-completion';

/** What the memory cache may hold by default: a thousand answers, and 64 MiB of their JSON. */
const MAX_ENTRIES = 1_000;
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * The response cache without Redis: a least-recently-used map bounded both in entries and in the
 * bytes of the answers' JSON, so a few huge answers cannot take the process's memory. An answer
 * larger than the whole budget is not kept.
 */
export class MemoryResponseCache extends ResponseCache {
  private readonly entries: LRUCache<string, ChatCompletion>;

  constructor(maxEntries = MAX_ENTRIES, maxBytes = MAX_BYTES) {
    super();
    this.entries = new LRUCache({ max: maxEntries, maxSize: maxBytes, sizeCalculation: (completion) => Math.max(1, Buffer.byteLength(JSON.stringify(completion))) });
  }

  get(key: string): Promise<ChatCompletion | null> {
    return Promise.resolve(this.entries.get(key) ?? null);
  }

  set(key: string, completion: ChatCompletion, ttlSecs: number): Promise<void> {
    this.entries.set(key, completion, { ttl: ttlSecs * 1000 });
    return Promise.resolve();
  }
}
