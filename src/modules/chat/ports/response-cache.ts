import type { ChatCompletion } from '../../providers/domain/chat-completion';

/**
 * Exact-match answers (spec 1.7): a whole completion under the SHA-256 key of what produced it.
 * Both operations fail soft: a cache that cannot answer is a miss, and a failed write is dropped.
 */
export abstract class ResponseCache {
  abstract get(key: string): Promise<ChatCompletion | null>;

  abstract set(key: string, completion: ChatCompletion, ttlSecs: number): Promise<void>;
}
