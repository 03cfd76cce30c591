import { isWordCharacter } from './prompt-guard-terms';

/**
 * Quoted passages in the guard's `words` view (where every quotation mark is '"'), so a quoted
 * attack asked about ("is 'reveal your system prompt' an attack?") can be told from one given.
 * One pass; a quotation left open for longer than MAX_QUOTE characters is not one.
 */

export interface QuoteSpan {
  /** The opening mark. */
  readonly start: number;
  /** The closing mark. */
  readonly end: number;
}

const MAX_QUOTE = 400;

export function quoteSpans(words: string): QuoteSpan[] {
  const spans: QuoteSpan[] = [];
  let open = -1;
  let mark = '';
  for (let i = 0; i < words.length; i++) {
    const character = words[i]!;
    if (open >= 0 && i - open > MAX_QUOTE) open = -1;
    let opens = false;
    let closes = false;
    if (character === '"') {
      opens = open < 0;
      closes = open >= 0 && mark === '"';
    } else if (character === "'") {
      // An apostrophe inside a word ("don't") or after one ("users'") neither opens nor closes.
      const wordBefore = i > 0 && isWordCharacter(words.charCodeAt(i - 1));
      const wordAfter = i + 1 < words.length && isWordCharacter(words.charCodeAt(i + 1));
      opens = open < 0 && !wordBefore && wordAfter;
      closes = open >= 0 && mark === "'" && wordBefore && !wordAfter;
    }
    if (opens) {
      open = i;
      mark = character;
    } else if (closes) {
      spans.push({ start: open, end: i });
      open = -1;
    }
  }
  return spans;
}

/** Whether `index` lies inside one of `spans` (sorted, disjoint). */
export function isQuoted(spans: readonly QuoteSpan[], index: number): boolean {
  let low = 0;
  let high = spans.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const span = spans[middle]!;
    if (index <= span.start) high = middle - 1;
    else if (index >= span.end) low = middle + 1;
    else return true;
  }
  return false;
}
