/**
 * Counts keyword hits per list in one pass over a text's words, so a 20 KB prompt costs one
 * tokenisation and one map look-up per word, whatever the number of lists. Matching respects word
 * boundaries ("hi" never matches "this"); multi-word phrases match consecutive words. Keywords in
 * scripts written without spaces (Chinese, Japanese) match as substrings, the only boundary they have.
 */
export class KeywordLexicon<K extends string> {
  private readonly byFirstWord = new Map<string, Array<{ list: K; rest: readonly string[] }>>();
  private readonly unspaced: Array<{ list: K; keyword: string }> = [];

  constructor(lists: Readonly<Record<K, readonly string[]>>) {
    for (const list of Object.keys(lists) as K[]) {
      for (const keyword of lists[list]) {
        if (UNSPACED_SCRIPT.test(keyword)) {
          this.unspaced.push({ list, keyword });
          continue;
        }
        const [first, ...rest] = words(keyword);
        const entries = this.byFirstWord.get(first) ?? [];
        entries.push({ list, rest });
        this.byFirstWord.set(first, entries);
      }
    }
  }

  /** Hits per list in `lowerText` (already lowercased), given its words from `words()`. */
  count(lowerText: string, textWords: readonly string[]): Record<K, number> {
    const hits = {} as Record<K, number>;
    for (let i = 0; i < textWords.length; i++) {
      const entries = this.byFirstWord.get(textWords[i]);
      if (!entries) continue;
      for (const { list, rest } of entries) {
        let j = 0;
        while (j < rest.length && textWords[i + 1 + j] === rest[j]) j++;
        if (j === rest.length) hits[list] = (hits[list] ?? 0) + 1;
      }
    }
    if (!UNSPACED_SCRIPT.test(lowerText)) return hits;
    for (const { list, keyword } of this.unspaced) {
      for (let at = lowerText.indexOf(keyword); at !== -1; at = lowerText.indexOf(keyword, at + keyword.length)) {
        hits[list] = (hits[list] ?? 0) + 1;
      }
    }
    return hits;
  }
}

const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
// Every repetition is bounded (docs/decisions.md, "Bounded runs in text scans"): a word of more than
// 4,096 letters is taken as several, never one match whose backtracking grows with the text.
const WORD = /[\p{L}\p{N}]{1,4096}(?:['’][\p{L}]{1,64}){0,16}/gu;
// The same words for pure-ASCII text, several times faster than Unicode property classes.
const ASCII_WORD = /[a-z0-9]{1,4096}(?:'[a-z]{1,64}){0,16}/g;
const NON_ASCII = /[^\x00-\x7f]/;

/** Lowercased words: runs of letters and digits (apostrophes inside kept: "don't"). */
export function words(lowerText: string): string[] {
  return lowerText.match(wordPattern(lowerText)) ?? [];
}

/** How many words `words()` would return, without building them. */
export function wordCount(lowerText: string): number {
  const pattern = wordPattern(lowerText);
  pattern.lastIndex = 0;
  let n = 0;
  while (pattern.exec(lowerText) !== null) n += 1;
  return n;
}

function wordPattern(lowerText: string): RegExp {
  return NON_ASCII.test(lowerText) ? WORD : ASCII_WORD;
}
