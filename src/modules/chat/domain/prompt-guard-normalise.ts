/**
 * Turns a message text into the views the prompt guard inspects, undoing cheap obfuscation first.
 * Every step is one linear regex pass; callbacks run only on the (rare) tokens that need folding.
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
}

// Unicode tag characters (U+E0020..U+E007E) mirror ASCII invisibly; models still read them, so they
// are decoded rather than dropped ("ASCII smuggling").
const TAG_CHARACTERS = /[\u{E0020}-\u{E007E}]/gu;
const TAG_OFFSET = 0xe0000;
// Zero-width spaces and joiners, soft hyphens, bidi controls, variation selectors and the like.
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

const APOSTROPHES = /[\u2018\u2019\u02bc\u00b4]/g;

// Cyrillic and Greek letters that render like Latin ones (lower case, as folding runs after
// lower-casing). Applied only inside words that mix scripts, so real Russian or Greek is untouched.
const LOOKALIKES: Readonly<Record<string, string>> = {
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y',
  х: 'x', і: 'i', ї: 'i', ј: 'j', ѕ: 's', һ: 'h', ԁ: 'd', ԛ: 'q', ԝ: 'w', ӏ: 'l',
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x',
};
const GREEK_OR_CYRILLIC = /[\u0370-\u052f]/;
const LATIN_NEXT_TO_LOOKALIKE = /[a-z][\u0370-\u052f]|[\u0370-\u052f][a-z]/;
const MIXED_SCRIPT_WORD =
  /(?<!\p{L})(?=\p{Script=Latin}+[\p{Script=Cyrillic}\p{Script=Greek}]|[\p{Script=Cyrillic}\p{Script=Greek}]+\p{Script=Latin})\p{L}+/gu;

// Digits standing in for letters ("1gn0r3"), folded only in tokens that mix letters and digits.
const LEET: Readonly<Record<string, string>> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't' };
const LETTER_DIGIT_TOKEN = /\b(?:[a-z]+[013457]|[013457]+[a-z])[a-z0-9]*/g;
const LEET_DIGITS = /[013457]/g;

// Three or more single letters joined by one separator ("i g n o r e", "i.g.n.o.r.e") become a word.
const SPACED_LETTERS = /\b[a-z](?:[ .*-][a-z]\b){2,}/g;
const SPACING = /[ .*-]/g;

// Only runs and non-space whitespace need replacing; single spaces are most of any text.
const WHITESPACE = /\s{2,}|[^\S ]/g;

// Punctuation and symbols beyond Latin-1 (curly quotes, dashes, emoji) are only gaps to the rules.
// Made spaces, they let most texts become one-byte strings, on which V8 runs the Unicode-aware
// phrase patterns several times faster than on two-byte ones.
// (The look-ahead keeps the costly property test off Latin-1 characters.)
const WIDE_NON_WORD = /(?=[^\x00-\xff])[^\p{L}\p{M}\p{N}]/gu;
const BEYOND_LATIN1 = /[^\x00-\xff]/;

export function guardViews(text: string): GuardViews {
  const exact = text
    .normalize('NFKC')
    .replace(TAG_CHARACTERS, (tag) => String.fromCharCode(tag.codePointAt(0)! - TAG_OFFSET))
    .replace(INVISIBLE, '');
  const lower = exact.toLowerCase().replace(APOSTROPHES, "'");
  const mixesScripts = GREEK_OR_CYRILLIC.test(lower) && LATIN_NEXT_TO_LOOKALIKE.test(lower);
  const words = (mixesScripts ? lower.replace(MIXED_SCRIPT_WORD, foldLookalikes) : lower)
    .replace(LETTER_DIGIT_TOKEN, (token) => token.replace(LEET_DIGITS, (digit) => LEET[digit]!))
    .replace(SPACED_LETTERS, (run) => run.replace(SPACING, ''))
    .replace(WIDE_NON_WORD, ' ')
    .replace(WHITESPACE, ' ');
  return { exact, words: oneByte(words) };
}

/** V8 keeps a string two-byte once any part of its history was; re-encoding Latin-1 text drops that. */
function oneByte(text: string): string {
  return BEYOND_LATIN1.test(text) ? text : Buffer.from(text, 'latin1').toString('latin1');
}

function foldLookalikes(word: string): string {
  return Array.from(word, (letter) => LOOKALIKES[letter] ?? letter).join('');
}
