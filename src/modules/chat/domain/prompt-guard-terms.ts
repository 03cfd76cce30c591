/**
 * Term families for the prompt guard: an attack is a few kinds of words close together, in any
 * order ("ignore" + "instructions" + "previous" within a few dozen characters), which carries
 * across word orders (Hindi and Japanese put the verb last) and across the languages listed in the
 * data file. The words are literal terms found in one Aho-Corasick pass over the guard's `words`
 * view, so the cost is linear in the text whatever the number of terms: each character moves the
 * automaton once (failure links are amortised), and each position reports at most the terms that
 * end there.
 *
 * A term in a script written with spaces between words (Latin, Greek, Cyrillic) must start and end
 * at word edges, unless it ends in `*` (a stem: "инструкци*"). Terms in other scripts match
 * anywhere: Chinese and Japanese have no spaces, and Arabic, Hindi, Bengali and Urdu attach
 * particles to the words the terms name.
 */

export type TermCategory = 'injection' | 'jailbreak';

export interface TermFamiliesData {
  /** Kinds of words, each a list of terms per language. */
  readonly groups: Readonly<Record<string, { readonly terms: Readonly<Record<string, readonly string[]>> }>>;
  /** Terms that, where they occur, hide the terms inside them ("my previous instructions", "never reveal"). */
  readonly blockers: { readonly terms: Readonly<Record<string, readonly string[]>> };
  readonly rules: ReadonlyArray<{ readonly id: string; readonly category: string; readonly all: readonly string[]; readonly window: number }>;
}

export interface TermRule {
  readonly id: string;
  readonly category: TermCategory;
}

export interface Occurrence {
  readonly start: number;
  readonly end: number;
  /** Bit i set: the term belongs to group i. */
  readonly groups: number;
}

export interface TermHit {
  readonly rule: TermRule;
  /** The span from the first to the last occurrence that made the hit. */
  readonly start: number;
  readonly end: number;
}

interface Term {
  readonly length: number;
  readonly groups: number;
  readonly blocker: boolean;
  readonly wordStart: boolean;
  readonly wordEnd: boolean;
}

interface CompiledRule extends TermRule {
  readonly groups: readonly number[];
  /** Every group of the rule, as bits: a text whose occurrences lack one cannot hit it. */
  readonly mask: number;
  readonly window: number;
}

const SPACED_SCRIPT = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}0-9]/u;

/** In the `words` view every character beyond Latin-1 that is not part of a word has become a space. */
export function isWordCharacter(code: number): boolean {
  if (code < 0x80) return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
  if (code < 0x100) return code >= 0xc0 && code !== 0xd7 && code !== 0xf7;
  return true;
}

export class TermFamilies {
  private readonly groupIndex = new Map<string, number>();
  private readonly terms: Term[] = [];
  private readonly rules: CompiledRule[];
  // The automaton: transitions, failure links and the terms recognised in each state.
  private readonly next: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  private readonly output: number[][] = [[]];
  private longest = 0;

  constructor(data: TermFamiliesData) {
    for (const name of Object.keys(data.groups)) {
      if (this.groupIndex.size === 31) throw new Error('term families: at most 31 groups');
      this.groupIndex.set(name, this.groupIndex.size);
    }
    const termIds = new Map<string, number>();
    const add = (raw: string, group: number | undefined) => {
      const stem = raw.endsWith('*');
      const text = (stem ? raw.slice(0, -1) : raw).normalize('NFKC').toLowerCase();
      const known = termIds.get(text);
      if (known !== undefined) {
        const term = this.terms[known]!;
        this.terms[known] = { ...term, groups: term.groups | (group === undefined ? 0 : 1 << group), blocker: term.blocker || group === undefined };
        return;
      }
      const spaced = SPACED_SCRIPT.test(text);
      termIds.set(text, this.terms.length);
      this.longest = Math.max(this.longest, text.length);
      this.terms.push({
        length: text.length,
        groups: group === undefined ? 0 : 1 << group,
        blocker: group === undefined,
        wordStart: spaced,
        wordEnd: spaced && !stem && SPACED_SCRIPT.test(text.slice(-1)),
      });
      this.insert(text, this.terms.length - 1);
    };
    for (const [name, { terms }] of Object.entries(data.groups)) {
      for (const list of Object.values(terms)) for (const term of list) add(term, this.groupIndex.get(name)!);
    }
    for (const list of Object.values(data.blockers.terms)) for (const term of list) add(term, undefined);
    this.link();
    this.rules = data.rules.map(({ id, category, all, window }) => {
      // An unbounded window would make a rule fire on any text, its missing groups at -Infinity included.
      if (!Number.isFinite(window) || window < 0) throw new Error(`term families: rule ${id} needs a finite window`);
      const groups = all.map((name) => {
        const index = this.groupIndex.get(name);
        if (index === undefined) throw new Error(`term families: rule ${id} names unknown group ${name}`);
        return index;
      });
      return { id, category: categoryOf(id, category), window, groups, mask: groups.reduce((mask, group) => mask | (1 << group), 0) };
    });
  }

  /** Bit mask of a group, for `Occurrence.groups`. */
  group(name: string): number {
    const index = this.groupIndex.get(name);
    if (index === undefined) throw new Error(`term families: unknown group ${name}`);
    return 1 << index;
  }

  /** Every term occurrence not hidden by a blocker, in order of where it ends. */
  occurrences(text: string): Occurrence[] {
    const found: Array<Occurrence & { readonly blocker: boolean }> = [];
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let to = this.next[state]!.get(code);
      while (to === undefined && state !== 0) {
        state = this.fail[state]!;
        to = this.next[state]!.get(code);
      }
      state = to ?? 0;
      for (const id of this.output[state]!) {
        const term = this.terms[id]!;
        const start = i + 1 - term.length;
        if (term.wordStart && start > 0 && isWordCharacter(text.charCodeAt(start - 1))) continue;
        if (term.wordEnd && i + 1 < text.length && isWordCharacter(text.charCodeAt(i + 1))) continue;
        found.push({ start, end: i + 1, groups: term.groups, blocker: term.blocker });
      }
    }
    return unblocked(found, this.longest);
  }

  /** Each rule whose groups all occur within its window, at the first place they do. */
  *hits(occurrences: readonly Occurrence[]): Generator<TermHit> {
    // Most texts hold no rule's every group: checked once, so they cost no per-rule walk.
    let present = 0;
    for (const occurrence of occurrences) present |= occurrence.groups;
    for (const rule of this.rules) {
      if ((present & rule.mask) !== rule.mask) continue;
      const lastStart = rule.groups.map(() => -Infinity);
      for (const occurrence of occurrences) {
        if (!(occurrence.groups & rule.mask)) continue;
        rule.groups.forEach((group, slot) => {
          if (occurrence.groups & (1 << group)) lastStart[slot] = occurrence.start;
        });
        const first = Math.min(...lastStart);
        if (occurrence.end - first <= rule.window) {
          yield { rule, start: first, end: occurrence.end };
          break;
        }
      }
    }
  }

  private insert(text: string, id: number): void {
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let to = this.next[state]!.get(code);
      if (to === undefined) {
        to = this.next.length;
        this.next.push(new Map());
        this.fail.push(0);
        this.output.push([]);
        this.next[state]!.set(code, to);
      }
      state = to;
    }
    this.output[state]!.push(id);
  }

  /** Breadth-first failure links; each state also reports the terms its failure chain recognises. */
  private link(): void {
    const queue = [...this.next[0]!.values()];
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const [code, to] of this.next[state]!) {
        let fallback = this.fail[state]!;
        while (fallback !== 0 && !this.next[fallback]!.has(code)) fallback = this.fail[fallback]!;
        const target = this.next[fallback]!.get(code);
        this.fail[to] = target !== undefined && target !== to ? target : 0;
        this.output[to] = [...this.output[to]!, ...this.output[this.fail[to]!]!];
        queue.push(to);
      }
    }
  }
}

function categoryOf(id: string, category: string): TermCategory {
  if (category !== 'injection' && category !== 'jailbreak') throw new Error(`term families: rule ${id} has unknown category ${category}`);
  return category;
}

/**
 * Drops the blockers, and every occurrence that starts inside one. Occurrences come in order of
 * their end, so those starting inside a blocker lie at most `longest` characters of ends before
 * or after it: each walk is bounded by the longest term times the terms that can end at one place.
 */
function unblocked(found: ReadonlyArray<Occurrence & { readonly blocker: boolean }>, longest: number): Occurrence[] {
  if (!found.some((occurrence) => occurrence.blocker)) return [...found];
  const hidden = new Uint8Array(found.length);
  found.forEach((blocker, index) => {
    if (!blocker.blocker) return;
    hidden[index] = 1;
    const inside = (other: Occurrence) => other.start >= blocker.start && other.start < blocker.end;
    for (let back = index - 1; back >= 0 && found[back]!.end > blocker.start; back--) {
      if (inside(found[back]!)) hidden[back] = 1;
    }
    for (let ahead = index + 1; ahead < found.length && found[ahead]!.end < blocker.end + longest; ahead++) {
      if (inside(found[ahead]!)) hidden[ahead] = 1;
    }
  });
  return found.filter((_, index) => hidden[index] === 0);
}
