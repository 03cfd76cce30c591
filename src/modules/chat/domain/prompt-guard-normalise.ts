import obfuscation from './guard-data/obfuscation.json';

/**
 * Turns a message text into the views the prompt guard inspects, undoing cheap obfuscation first.
 *
 * Linear by construction: every pattern here is a single character class (or a fixed sequence of
 * them) with at most one unbounded repeat, which the engine cannot re-enter from a later start,
 * and per-word decisions (which script a word mixes, whether it mixes letters and digits) are made
 * in code over tokens the regex hands out once. No look-ahead scans a run the match then rescans.
 * The folding steps target ASCII words ("ignore"), so they use the cheap ASCII `\b`.
 */

export interface GuardViews {
  /** NFKC, invisible characters removed: digits and case intact, for the PII detectors. */
  readonly exact: string;
  /**
   * `exact` lower-cased, look-alikes and digits-for-letters folded, letter spacing collapsed,
   * non-word characters beyond Latin-1 made spaces, whitespace runs made one space: for the phrases.
   */
  readonly words: string;
  /**
   * Further `words` views of what the text hides: the text reversed (when it holds a word written
   * backwards) and the text of every base64 run that decodes to text. One level deep.
   */
  readonly hidden: readonly string[];
}

// Unicode tag characters (U+E0020..U+E007E) mirror ASCII invisibly; models still read them, so they
// are decoded rather than dropped ("ASCII smuggling").
// Every repetition in these patterns is bounded (docs/decisions.md, "Bounded runs in text scans"):
// a run longer than its bound is taken in pieces.
const TAG_CHARACTERS = /[\u{E0020}-\u{E007E}]/gu;
const TAG_OFFSET = 0xe0000;
// Zero-width spaces and joiners, soft hyphens, bidi controls, variation selectors and the like.
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

const APOSTROPHES = /[\u2018\u2019\u02bc\u00b4]/g;
// Quotation marks all become '"', so the guard can tell a quoted attack from a given one.
const QUOTATION_MARKS = /[\u201c\u201d\u201e\u201f\u00ab\u00bb\u300c\u300d\u300e\u300f]/g;

const LOOKALIKES: Readonly<Record<string, string>> = obfuscation.lookalikes.letters;
// Greek, Cyrillic and Armenian: the scripts the look-alike table folds.
const LOOKALIKE_SCRIPT_FIRST = 0x0370;
const LOOKALIKE_SCRIPT_LAST = 0x058f;
const LOOKALIKE_SCRIPT = /[\u0370-\u058f]/;
const LATIN_NEXT_TO_LOOKALIKE = /[a-z][\u0370-\u058f]|[\u0370-\u058f][a-z]/;
const LETTER_RUN = /\p{L}{1,4096}/gu;

const LEET: Readonly<Record<string, string>> = obfuscation.leet.digits;
const LETTER_NEXT_TO_LEET_DIGIT = /[a-z][013457]|[013457][a-z]/;
const ALPHANUMERIC_RUN = /[a-z0-9]{1,4096}/g;
const LEET_DIGITS = /[013457]/g;

// Three or more single letters joined by one repeated separator ("i g n o r e", "i.g.n.o.r.e y.o.u");
// a different separator ends the word.
const SPACED_LETTERS = /\b[a-z]([ .*-])[a-z]\b(?:\1[a-z]\b){1,4096}/g;
const SPACING = /[ .*-]/g;

// Only runs and non-space whitespace need replacing; single spaces are most of any text.
const WHITESPACE = /\s{2,4096}|[^\S ]/g;
// A run longer than the bound is collapsed in pieces, one space each: those spaces are collapsed
// again until no two are left, since a gap of several spaces is wider than a phrase spans and would
// let an attack through (each pass divides a run by 4,096, so no body needs more than two).
const SPACE_RUN = / {2,4096}/g;

// Punctuation and symbols beyond Latin-1 (curly quotes, dashes, emoji) are only gaps to the rules.
// Made spaces, they let most texts become one-byte strings, on which V8 runs the Unicode-aware
// phrase patterns several times faster than on two-byte ones.
// (The look-ahead keeps the costly property test off Latin-1 characters; it reads one character.)
const WIDE_NON_WORD = /(?=[^\x00-\xff])[^\p{L}\p{M}\p{N}]/gu;
const BEYOND_LATIN1 = /[^\x00-\xff]/;

const REVERSED_CUE = new RegExp(`\\b(?:${obfuscation.reversedCues.words.join('|')})\\b`);

const BASE64_MINIMUM_RUN = obfuscation.base64.minimumRun;
const MINIMUM_PRINTABLE_SHARE = obfuscation.base64.minimumPrintableShare;

export function guardViews(text: string): GuardViews {
  const exact = text
    .normalize('NFKC')
    .replace(TAG_CHARACTERS, (tag) => String.fromCharCode(tag.codePointAt(0)! - TAG_OFFSET))
    .replace(INVISIBLE, '');
  const words = wordsOf(exact);
  const hidden: string[] = [];
  if (REVERSED_CUE.test(words)) hidden.push(Array.from(words).reverse().join(''));
  for (const decoded of decodedBase64(exact)) hidden.push(wordsOf(decoded.normalize('NFKC').replace(INVISIBLE, '')));
  return { exact, words, hidden };
}

function wordsOf(exact: string): string {
  const lower = exact.toLowerCase().replace(APOSTROPHES, "'").replace(QUOTATION_MARKS, '"');
  const mixesScripts = LOOKALIKE_SCRIPT.test(lower) && LATIN_NEXT_TO_LOOKALIKE.test(lower);
  const unmixed = mixesScripts ? lower.replace(LETTER_RUN, foldLookalikes) : lower;
  const unleet = LETTER_NEXT_TO_LEET_DIGIT.test(unmixed) ? unmixed.replace(ALPHANUMERIC_RUN, foldLeet) : unmixed;
  let words = unleet
    .replace(SPACED_LETTERS, (run) => run.replace(SPACING, ''))
    .replace(WIDE_NON_WORD, ' ')
    .replace(WHITESPACE, ' ');
  while (words.includes('  ')) words = words.replace(SPACE_RUN, ' ');
  return oneByte(words);
}

/** V8 keeps a string two-byte once any part of its history was; re-encoding Latin-1 text drops that. */
function oneByte(text: string): string {
  return BEYOND_LATIN1.test(text) ? text : Buffer.from(text, 'latin1').toString('latin1');
}

/** Folds look-alikes in a word that mixes Latin letters with Greek, Cyrillic or Armenian ones. */
function foldLookalikes(word: string): string {
  let latin = false;
  let lookalikeScript = false;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    if (code >= 0x61 && code <= 0x7a) latin = true;
    else if (code >= LOOKALIKE_SCRIPT_FIRST && code <= LOOKALIKE_SCRIPT_LAST) lookalikeScript = true;
  }
  if (!latin || !lookalikeScript) return word;
  let folded = '';
  for (const letter of word) folded += LOOKALIKES[letter] ?? letter;
  return folded;
}

/** Folds digits in a token that mixes letters and digits ("1gn0r3"); "2024" and "abc" stay. */
function foldLeet(token: string): string {
  let letter = false;
  let digit = false;
  for (let i = 0; i < token.length; i++) {
    if (token.charCodeAt(i) >= 0x61) letter = true;
    else digit = true;
  }
  return letter && digit ? token.replace(LEET_DIGITS, (leet) => LEET[leet]!) : token;
}

/** The text of every base64 run that decodes to readable text with a space in it. */
function* decodedBase64(exact: string): Generator<string> {
  for (const run of base64Runs(exact)) {
    const decoded = Buffer.from(run, 'base64').toString('utf8');
    if (decoded.includes(' ') && printableShare(decoded) >= MINIMUM_PRINTABLE_SHARE) yield decoded;
  }
}

/**
 * Every whole run of the base64 alphabet at least BASE64_MINIMUM_RUN long, with up to two `=` after
 * it. A loop rather than a pattern: a run has no useful bound (a long payload is one run), and a
 * pattern's backtracking would grow with it (docs/decisions.md, "Bounded runs in text scans").
 */
function* base64Runs(text: string): Generator<string> {
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && isBase64Letter(text.charCodeAt(i))) continue;
    if (i - start >= BASE64_MINIMUM_RUN) {
      let end = i;
      while (end < text.length && end - i < 2 && text.charCodeAt(end) === 0x3d) end++;
      yield text.slice(start, end);
    }
    start = i + 1;
  }
}

function isBase64Letter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2b || code === 0x2f;
}

function printableShare(text: string): number {
  let printable = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Control characters and U+FFFD (what invalid UTF-8 decodes to) are not text.
    if ((code >= 0x20 && code !== 0x7f && code !== 0xfffd) || code === 0x0a || code === 0x09 || code === 0x0d) printable++;
  }
  return printable / text.length;
}
