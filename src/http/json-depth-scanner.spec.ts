import { doublingRatio, MAX_DOUBLING_RATIO } from '../../test/support/linear-time';
import { nestingBeyond } from '../modules/chat/domain/json-nesting';
import { JsonDepthScanner } from './json-depth-scanner';

/** Feeds `text` in chunks of `size` bytes; the first verdict that is not null, or null. */
function scan(text: string, size = 7, maxDepth = 64): string | null {
  const bytes = Buffer.from(text, 'utf8');
  const scanner = new JsonDepthScanner(maxDepth);
  for (let at = 0; at < bytes.length; at += size) {
    const verdict = scanner.feed(bytes.subarray(at, at + size));
    if (verdict !== null) return verdict;
  }
  return null;
}

describe('JsonDepthScanner', () => {
  it('passes bodies at the bound and names the path past it as the chat validator does, however the body is cut', () => {
    const atBound = '['.repeat(64) + ']'.repeat(64);
    expect(scan(atBound)).toBeNull();
    const shapes = [
      `{"tools":[{"function":{"parameters":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}}]}`,
      `{"response_format":{"json_schema":${'['.repeat(70)}${']'.repeat(70)}}}`,
      `{"messages":[{"content":[{"extra":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}]}]}`,
      `{"k\\u00e9y \\"quoted\\" ${'x'.repeat(60)}":${'['.repeat(70)}${']'.repeat(70)}}`,
      `[1,[2,{"b":3,"c":${'{"é":'.repeat(70)}1${'}'.repeat(70)}}]]`,
    ];
    for (const text of shapes) {
      const expected = nestingBeyond(JSON.parse(text), 64);
      for (const size of [1, 3, 7, 4096]) expect(scan(text, size)).toBe(expected);
    }
  });

  it('skips brackets inside strings and escaped quotes', () => {
    expect(scan(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`, 5, 2)).toBeNull();
    expect(scan('{"a":[[1]]}', 5, 2)).toBe('a[0]');
  });

  it('runs in linear time on the shapes an attacker would send', () => {
    const shapes: Array<(size: number) => string> = [
      (size) => '['.repeat(60) + '0,'.repeat(size / 2) + ']'.repeat(60),
      (size) => `{"a":"${'\\"['.repeat(size / 3)}"}`,
      (size) => '{"k":1,'.repeat(size / 7) + '"z":0}',
    ];
    for (const shape of shapes) {
      const { ratio } = doublingRatio((size) => {
        const bytes = Buffer.from(shape(size));
        return () => new JsonDepthScanner().feed(bytes);
      }, 1 << 20);
      expect(ratio).toBeLessThan(MAX_DOUBLING_RATIO);
    }
  });
});
