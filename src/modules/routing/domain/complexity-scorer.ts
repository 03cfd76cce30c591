import type { Tier } from './catalog';
import { KeywordLexicon, wordCount as countWords, words } from './keyword-lexicon';
import {
  DIMENSIONS,
  KEYWORD_DENSITY,
  KEYWORDS,
  LENGTH_PIVOT_WORDS,
  LENGTH_SLOPE,
  PASTED_WORD_SHARE,
  REASONING_EVIDENCE,
  REASONING_THRESHOLD,
  TIER_THRESHOLDS,
  WEIGHTS,
  type Dimension,
  type KeywordList,
} from './routing-rules';

export interface ScorerInput {
  userText: string;
  messageCount: number;
  usesTools: boolean;
}

export interface TierScore {
  tier: Tier;
  /** The weighted sum of the 15 signals (Simple, Medium, Complex). */
  score: number;
  /** The reasoning evidence (Reasoning at REASONING_THRESHOLD or above). */
  reasoningEvidence: number;
  /** Each dimension's signal before weighting (for debugging and docs/routing.md). */
  signals: Readonly<Record<Dimension, number>>;
}

const lexicon = new KeywordLexicon<KeywordList>(KEYWORDS);
// Every repetition in these patterns is bounded (docs/decisions.md, "Bounded runs in text scans").
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
// Spaces within one line only: `\s` also takes newlines, so `^\s*` tried at every line start of a
// run of blank lines would rescan the whole run each time (quadratic; docs/decisions.md "Linear time outside the guard").
const NUMBERED_LINE = /^[^\S\n\r\u2028\u2029]{0,64}(?:\d{1,9}[.)]|[-*•])[^\S\n\r\u2028\u2029]{1,64}\S/gm;
// Notation, not code: exponents, relations and operators between numbers (code's `=` and `<` do not count).
const MATH_SYMBOL = /[≤≥≠≈∑∫√∞π∀∃∈⊂∧∨¬⇒²³^]|\d ?[+*/×÷−-] ?\d/g;
const FENCE = /```/g;
const SEPARATOR_LINE = /^\s{0,64}(?:-{3,4096}|={3,4096}|_{3,4096}|\*{3,4096}|"{3}|'{3})\s{0,64}$/;
const INLINE_CODE = /`[^`\n]{1,4096}`/g;
const CODE_SYMBOL = /=>|;\s{0,64}$|\{\s{0,64}$|\(\)|===|!==|::|->|<\/?[a-z]{1,64}>/gm;

/**
 * The deterministic 15-dimension score of a request and its tier (spec 1.6). Pure and linear in
 * the text: one lowercasing, one tokenisation, one pass of keyword look-ups, a few regex scans.
 */
export function scoreComplexity(input: ScorerInput): TierScore {
  const whole = input.userText.toLowerCase();
  const { ask: lower, pasted } = separatePasted(whole);
  const textWords = words(lower);
  const hits = lexicon.count(lower, textWords);
  const density = (list: KeywordList, extraHits = 0): number => KEYWORD_DENSITY[Math.min((hits[list] ?? 0) + extraHits, KEYWORD_DENSITY.length - 1)];
  const wordCount = textWords.length + count(lower, CJK_CHAR) + PASTED_WORD_SHARE * (countWords(pasted) + count(pasted, CJK_CHAR));

  const signals: Record<Dimension, number> = {
    tokenCount: clamp(Math.log2(Math.max(wordCount, 1) / LENGTH_PIVOT_WORDS) * LENGTH_SLOPE),
    codePresence: Math.min(1, (count(whole, FENCE) > 0 ? 0.4 : 0) + 0.1 * Math.min(count(whole, INLINE_CODE), 3) + 0.15 * (hits.code ?? 0) + 0.05 * count(whole, CODE_SYMBOL)),
    // A proof or derivation asked for outright is the surest reasoning marker: each counts twice.
    reasoningMarkers: density('reasoning', 2 * (hits.proof ?? 0)),
    technicalTerms: density('technical'),
    creativeMarkers: density('creative'),
    simpleIndicators: 0 - density('simple'),
    multiStep: Math.min(1, density('multiStep') + 0.2 * count(lower, NUMBERED_LINE)),
    questionComplexity: Math.min(1, questionSignal(count(lower, /[?？]/g)) + density('openEnded')),
    agenticMarkers: density('agentic'),
    mathAndLogic: Math.min(1, density('math') + 0.1 * count(lower, MATH_SYMBOL)),
    languageComplexity: languageSignal(textWords),
    conversationDepth: input.messageCount > 10 ? 1 : input.messageCount >= 6 ? 0.6 : input.messageCount >= 3 ? 0.3 : 0,
    toolUsage: input.usesTools ? 0.8 : 0,
    outputFormat: density('outputFormat'),
    domainSpecificity: density('domain'),
  };

  let score = 0;
  for (const dimension of DIMENSIONS) score += signals[dimension] * WEIGHTS[dimension];
  let evidence = 0;
  for (const dimension of DIMENSIONS) evidence += signals[dimension] * (REASONING_EVIDENCE[dimension] ?? 0);
  const tier = evidence >= REASONING_THRESHOLD ? 'Reasoning' : (TIER_THRESHOLDS.find(([, min]) => score >= min)?.[0] ?? 'Simple');
  return { tier, score, reasoningEvidence: evidence, signals };
}

/**
 * Material pasted for the model to work on (fenced blocks, quoted lines, everything after a
 * separator line such as `---`) is not the ask: keywords and length are read from the ask, and
 * pasted words count at PASTED_WORD_SHARE. A long article to translate is still a simple task.
 */
function separatePasted(text: string): { ask: string; pasted: string } {
  // Lines are read in place, and consecutive lines bound for the same side are taken as one slice:
  // splitting into lines and concatenating them allocated per line, and on long pastes (64 K fence
  // lines) the collector's share grew faster than the text.
  const ask: string[] = [];
  const pasted: string[] = [];
  let run: string[] | undefined;
  let runStart = 0;
  let inFence = false;
  let afterSeparator = false;
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const first = firstVisible(text, start, end);
    let side: string[] | undefined = ask;
    if (first + 3 <= end && text.startsWith('```', first)) {
      inFence = !inFence;
      side = pasted;
    } else if (inFence || afterSeparator || text.charCodeAt(start) === GREATER_THAN) {
      side = pasted;
    } else if (SEPARATOR_OPENINGS.includes(text[first]) && SEPARATOR_LINE.test(text.slice(start, end))) {
      afterSeparator = true;
      side = undefined;
    }
    if (side !== run) {
      run?.push(text.slice(runStart, start));
      run = side;
      runStart = start;
    }
    start = end + 1;
  }
  run?.push(text.slice(runStart));
  const askText = ask.join('');
  return askText.trim() === '' ? { ask: text, pasted: '' } : { ask: askText, pasted: pasted.join('') };
}

const GREATER_THAN = 0x3e;
const SEPARATOR_OPENINGS = '-=_*"\'';

/** The index of the first character of text[start, end) that trimStart keeps, or end. */
function firstVisible(text: string, start: number, end: number): number {
  let index = start;
  while (index < end && isWhitespace(text.charCodeAt(index))) index += 1;
  return index;
}

function isWhitespace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return WHITESPACE.test(String.fromCharCode(code));
}

const WHITESPACE = /\s/;

function count(text: string, pattern: RegExp): number {
  let n = 0;
  pattern.lastIndex = 0;
  while (pattern.exec(text) !== null) n += 1;
  return n;
}

function clamp(value: number): number {
  return Math.max(-1, Math.min(1, value));
}

function questionSignal(questions: number): number {
  if (questions >= 4) return 0.8;
  if (questions >= 2) return 0.4;
  return questions === 1 ? 0.1 : 0;
}

/** Long words mark dense technical or formal prose. CJK runs are not words, so they do not count. */
function languageSignal(textWords: readonly string[]): number {
  let letters = 0;
  let counted = 0;
  for (const word of textWords) {
    if (UNSPACED.test(word)) continue;
    letters += word.length;
    counted += 1;
  }
  if (counted === 0) return 0;
  const average = letters / counted;
  return average > 7 ? 0.6 : average > 5.5 ? 0.2 : 0;
}
