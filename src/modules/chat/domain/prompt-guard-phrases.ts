/**
 * Phrase matching for the prompt guard in one pass over the text. Each phrase declares the plain
 * words it opens with; one regex made of the first words of all openings finds every place a
 * phrase could start, and only the phrases opening with that character are tried there, anchored
 * (sticky). Scanning once rather than once per rule keeps the cost flat as rules are added: V8
 * needs a few nanoseconds per character for each alternation scan, which thirty rules multiply
 * into milliseconds on a 20 KB prompt.
 *
 * Phrases are written so the regex engine cannot backtrack badly: alternatives start with
 * different text, repeats are bounded, and a repeated word (`WORD`) must end at a word edge.
 *
 * The text must be the guard's `words` view, in which every non-word character beyond Latin-1 has
 * become a space: there, the small class of Latin-1 non-word characters stands for
 * `[^\p{L}\p{N}]`, and V8 tests it many times faster than the Unicode properties (on two-byte
 * strings above all).
 */

const NON_WORD_CLASS = latin1ClassOf((character) => !/[\p{L}\p{N}]/u.test(character));
const NON_WORD = `[${NON_WORD_CLASS}]`;
const WORD_CHARACTER = `[^${NON_WORD_CLASS}]`;

// Between two words: up to four non-word characters, or none, so "ignore-all", "ignore, all" and
// "ignoreall" (letter spacing collapsed) all match.
const GAP = `${NON_WORD}{0,4}`;
// One whole word ("base64" included), for "up to N words of filler"; it cannot split a word, so
// it backtracks only over a word longer than its bound (docs/decisions.md, "Bounded runs in text
// scans"), which is no filler.
export const WORD = `${WORD_CHARACTER}{1,4096}(?!${WORD_CHARACTER})`;

const WORD_END = `(?!${WORD_CHARACTER})`;
// One word start for every script. `\b` would be cheaper but is ASCII-only: it holds between "é"
// and "you", so an ASCII opening would be found inside a long non-ASCII word at every repeat, and
// each find would scan the rest of that word (quadratic on "éyou" repeated).
const WORD_START = `(?<!${WORD_CHARACTER})`;
const UNSPACED_SCRIPT = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** A character-class body (ranges of \xHH escapes) of the Latin-1 characters that satisfy `test`. */
function latin1ClassOf(test: (character: string) => boolean): string {
  const hex = (code: number) => `\\x${code.toString(16).padStart(2, '0')}`;
  let body = '';
  for (let code = 0; code <= 0xff; code++) {
    if (!test(String.fromCharCode(code))) continue;
    let end = code;
    while (end < 0xff && test(String.fromCharCode(end + 1))) end++;
    body += end === code ? hex(code) : `${hex(code)}-${hex(end)}`;
    code = end;
  }
  return body;
}

export interface Phrase {
  /** The plain texts the phrase opens with (lower case; a space matches GAP). */
  readonly starts: readonly string[];
  /** Sticky: tested at one position. */
  readonly pattern: RegExp;
}

/** Spaces in a pattern source stand for GAP. */
function gapped(source: string): string {
  return source.replace(/ /g, GAP);
}

/**
 * Opens with one of `starts`, then a GAP and `rest` (a pattern source; '' for none), then a word
 * edge unless `open` (phrases ending in punctuation, or in a script written without spaces).
 */
export function phrase(starts: readonly string[], rest: string, { open = false } = {}): Phrase {
  const body = `${openingOf(starts)}${rest === '' ? '' : GAP + gapped(rest)}`;
  return { starts, pattern: new RegExp(`(?:${body})${open ? '' : WORD_END}`, 'uy') };
}

/** Any of `words`, as whole words, anywhere: context that must accompany a phrase. */
export function anyWord(words: readonly string[]): RegExp {
  return new RegExp(`${openingOf(words)}${WORD_END}`, 'u');
}

/** One alternation per kind of word start, so the scan checks each kind once per position. */
function openingOf(starts: readonly string[]): string {
  const byWordStart = new Map<string, string[]>();
  for (const start of starts) {
    const wordStart = wordStartOf(start);
    byWordStart.set(wordStart, [...(byWordStart.get(wordStart) ?? []), literal(start)]);
  }
  return `(?:${[...byWordStart].map(([wordStart, literals]) => `${wordStart}(?:${literals.join('|')})`).join('|')})`;
}

/** How the start of `text` must be delimited: scripts written without spaces and punctuation need nothing. */
function wordStartOf(text: string): string {
  if (/^[a-z0-9]/.test(text) || (/^\p{L}/u.test(text) && !UNSPACED_SCRIPT.test(text))) return WORD_START;
  return '';
}

function literal(text: string): string {
  return gapped(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
}

export interface PhraseMatch<R> {
  readonly rule: R;
  /** Where the phrase starts in the text. */
  readonly index: number;
}

interface Candidates<R> {
  /** Sticky union of the members' patterns: one test rejects a position for all of them. */
  readonly any: RegExp;
  readonly members: ReadonlyArray<{ readonly rule: R; readonly pattern: RegExp }>;
}

export class PhraseMatcher<R extends { readonly phrases: readonly Phrase[] }> {
  /** The first word of every opening: where a phrase may start. */
  private readonly openings: RegExp;
  /** Phrases by the first character of their openings. */
  private readonly byFirstCharacter = new Map<string, Candidates<R>>();

  constructor(rules: readonly R[]) {
    const members = new Map<string, Array<{ readonly rule: R; readonly pattern: RegExp }>>();
    for (const rule of rules) {
      for (const { starts, pattern } of rule.phrases) {
        for (const first of new Set(starts.map((start) => start[0]!))) {
          members.set(first, [...(members.get(first) ?? []), { rule, pattern }]);
        }
      }
    }
    for (const [first, candidates] of members) {
      const any = new RegExp(candidates.map(({ pattern }) => `(?:${pattern.source})`).join('|'), 'uy');
      this.byFirstCharacter.set(first, { any, members: candidates });
    }
    const firstWords = rules.flatMap((rule) => rule.phrases.flatMap(({ starts }) => starts.map((start) => start.split(' ')[0]!)));
    this.openings = new RegExp(openingOf([...new Set(firstWords)]), 'gu');
  }

  /** Every phrase occurrence, in text order (phrases starting at one position in rule order). */
  *matches(text: string): Generator<PhraseMatch<R>> {
    this.openings.lastIndex = 0;
    for (let opening = this.openings.exec(text); opening; opening = this.openings.exec(text)) {
      const index = opening.index;
      const candidates = this.byFirstCharacter.get(text[index]!);
      if (candidates && atIndex(candidates.any, text, index)) {
        for (const { rule, pattern } of candidates.members) {
          if (atIndex(pattern, text, index)) yield { rule, index };
        }
      }
      // Openings may overlap ("前の" inside "以前の"): resume one character on, not after.
      this.openings.lastIndex = index + 1;
    }
  }
}

function atIndex(sticky: RegExp, text: string, index: number): boolean {
  sticky.lastIndex = index;
  return sticky.test(text);
}
