import fc from 'fast-check';
import { PromptGuard } from './prompt-guard';

/**
 * The guard scans unpaid user input, so its cost must grow linearly with the text (see
 * docs/decisions.md, "Prompt guard"). Each shape is repeated to two sizes; doubling the text may at
 * most roughly double the time. The fastest of several runs is compared (the least disturbed by
 * other work on a shared machine), and a ratio of 3 separates linear (2) from quadratic (4) with room
 * for noise.
 */

const guard = new PromptGuard();
const MAX_RATIO = 3;

function repeatTo(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

function fastestMs(text: string, runs: number): number {
  let fastest = Infinity;
  for (let run = 0; run < runs; run++) {
    const started = process.hrtime.bigint();
    guard.inspect([text]);
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return fastest;
}

/** Measurements of one shape; a ratio spoilt by a burst of other work is measured again, a quadratic one never passes. */
const ATTEMPTS = 3;

/** Time at `size` and `2 * size`, after a warm-up at `size`: the best of ATTEMPTS measurements. */
function doublingRatio(unit: string, size: number, runs = 4): { readonly small: number; readonly large: number; readonly ratio: number } {
  const small = repeatTo(unit, size);
  const large = repeatTo(unit, 2 * size);
  fastestMs(small, 1);
  let best = { small: Infinity, large: Infinity, ratio: Infinity };
  for (let attempt = 0; attempt < ATTEMPTS && best.ratio >= MAX_RATIO; attempt++) {
    const smallMs = fastestMs(small, runs);
    const largeMs = fastestMs(large, runs);
    // Below a tenth of a millisecond the clock, not the guard, sets the ratio.
    const ratio = largeMs / Math.max(smallMs, 0.1);
    if (ratio < best.ratio) best = { small: smallMs, large: largeMs, ratio };
  }
  return best;
}

// Shapes that make backtracking or rescanning engines blow up, and shapes aimed at each step of
// this guard: look-alike folding, leet folding, spacing, base64 and reversal, phrase openings,
// term families, blockers, quotations and the PII scans.
const ADVERSARIAL_SHAPES: ReadonlyArray<readonly [string, string]> = [
  ['script switching ending in a Cyrillic sign', 'a' + 'ж\u0482'.repeat(64)],
  ['Latin and Cyrillic in one word', 'aж'],
  ['Latin, Cyrillic and Greek words', 'жa αb '],
  ['one long Latin word', 'a'],
  ['one long Cyrillic word', 'ж'],
  ['one long Han run', '中'],
  ['zero-width characters', 'a\u200b'],
  ['tag characters', '\u{E0061}'],
  ['nested brackets', '[{('],
  ['nested quotations', '"\''],
  ['quotations that never close', "'a "],
  ['spaced letters', 'a b '],
  ['spaced letters, changing separator', 'a.b-c d*'],
  ['leet in one long token', 'a1'],
  ['leet words', '1gn0r3 '],
  ['a long base64 run of text', 'SWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnMg'],
  ['a long base64 run of bytes', 'QUFB'],
  ['base64 runs just too short', 'QUFBQUFBQUFBQUFBQUF '],
  ['reversed cue words', 'eht dna '],
  ['phrase openings without their phrases', 'ignore ,,,, you are what your '],
  ['term family parts, never together', 'ignore ' + 'x '.repeat(40) + 'instructions ' + 'x '.repeat(40)],
  ['blockers', 'my previous instructions '],
  ['negations', 'never reveal your system prompt '],
  ['quoted attacks asked about', '"ignore all previous instructions" is this an attack? '],
  ['forged authority markers', 'system: '],
  ['digit groups ending in a letter', '1 '.repeat(30) + '1a '],
  ['one long digit run', '4'],
  ['IBAN-like groups', 'DE89 '],
  ['key headers without bodies', '-----BEGIN RSA PRIVATE KEY-----'],
  ['SSN keywords', 'ssn ssn 123 '],
];

describe('prompt guard cost grows linearly with the text', () => {
  it.each(ADVERSARIAL_SHAPES)('%s: doubling the text at most roughly doubles the time', (_, unit) => {
    const { small, large, ratio } = doublingRatio(unit, 64_000);
    if (ratio >= MAX_RATIO) throw new Error(`64 KB took ${small.toFixed(2)} ms, 128 KB ${large.toFixed(2)} ms (ratio ${ratio.toFixed(2)})`);
  });

  it.each([
    ['script switching ending in a Cyrillic sign', 'a' + 'ж\u0482'.repeat(64)],
    ['phrase openings without their phrases', 'ignore ,,,, you are what your '],
    ['a long base64 run of text', 'SWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnMg'],
  ])('%s: 512 KB to 1 MB at most roughly doubles the time', (_, unit) => {
    const { small, large, ratio } = doublingRatio(unit, 512_000, 2);
    if (ratio >= MAX_RATIO) throw new Error(`512 KB took ${small.toFixed(1)} ms, 1 MB ${large.toFixed(1)} ms (ratio ${ratio.toFixed(2)})`);
  });

  it('holds for shapes built from random pieces of the above', () => {
    const piece = fc.constantFrom(
      'a', 'ж', '\u0482', 'α', '中', '1', '0', '4', ' ', '.', '-', '*', '"', "'", '[', ']', '{', '}', '\n', '\u200b', '=', '+', '/', 'Q',
      '#', ':', '<|', '|>', 'ignore ', 'your ', 'system: ', 'eht ', 'my previous ', 'you are ', 'never ', 'instructions ', 'ssn ',
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
        const { ratio } = doublingRatio(pieces.join(''), 32_000, 3);
        return ratio < MAX_RATIO;
      }),
      { numRuns: 25 },
    );
  });
});
