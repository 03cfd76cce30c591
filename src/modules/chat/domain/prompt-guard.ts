import termFamilies from './guard-data/term-families.json';
import { findPii } from './pii-detectors';
import { guardViews } from './prompt-guard-normalise';
import { PhraseMatcher } from './prompt-guard-phrases';
import { isQuoted, quoteSpans, type QuoteSpan } from './prompt-guard-quotes';
import { PATTERN_RULES } from './prompt-guard-rules';
import { TermFamilies, type Occurrence } from './prompt-guard-terms';

export type GuardCategory = 'injection' | 'jailbreak' | 'pii';

/** `rule` is for logs and metrics only; a blocked client only ever sees the fixed policy message. */
export type GuardVerdict = { readonly blocked: false } | { readonly blocked: true; readonly category: GuardCategory; readonly rule: string };

interface Attack {
  readonly category: Exclude<GuardCategory, 'pii'>;
  readonly rule: string;
  /** Where the attack starts in the `words` view. */
  readonly index: number;
}

const PASSED: GuardVerdict = { blocked: false };

// How far before a phrase a `notAfter` condition (a negation, "my") is looked for.
const NOT_AFTER_REACH = 32;

const PHRASES = new PhraseMatcher(PATTERN_RULES);
const TERMS = new TermFamilies(termFamilies);
const DEFENSIVE = TERMS.group('defensive');
const EXECUTE = TERMS.group('execute');

/**
 * Blocks prompt injection, jailbreaks and high-risk PII before any payment work. Pass the text of
 * every message the request would forward to the provider (system, developer, user, tool and
 * assistant turns alike: a client writes all of them) and every text part.
 *
 * Two kinds of rule, both data (see docs/decisions.md, "Prompt guard"): phrases (prompt-guard-rules,
 * precise English and European wording) and term families (guard-data/term-families.json: kinds of
 * words close together, in the ten most spoken languages and a few more). Each text is inspected
 * as written and as it hides: reversed, and base64 decoded.
 *
 * Linear in the input: patterns are compiled once, at module load, none can backtrack more than
 * a bounded amount per position, phrases are found in one scan and terms in one automaton pass.
 */
export class PromptGuard {
  inspect(texts: readonly string[]): GuardVerdict {
    for (const text of texts) {
      const { exact, words, hidden } = guardViews(text);
      const attack = attackIn(words, quoteSpans(words)) ?? firstOf(hidden, (view) => attackIn(view, []));
      if (attack) return { blocked: true, category: attack.category, rule: attack.rule };
      const pii = findPii(exact);
      if (pii) return { blocked: true, category: 'pii', rule: pii };
    }
    return PASSED;
  }
}

/**
 * The first attack outside quotation marks; else the first inside them, unless the text around the
 * quotations asks about them (classify, is this an attack) without handing them over to act on.
 */
function attackIn(words: string, quotes: readonly QuoteSpan[]): Attack | undefined {
  const occurrences = TERMS.occurrences(words);
  let quoted: Attack | undefined;
  for (const attack of attacks(words, occurrences)) {
    if (!isQuoted(quotes, attack.index)) return attack;
    quoted ??= attack;
  }
  return quoted && !asksAboutQuotation(occurrences, quotes) ? quoted : undefined;
}

function* attacks(words: string, occurrences: readonly Occurrence[]): Generator<Attack> {
  // A context is searched in the whole text: once per text, however often its phrase occurs.
  const contextFound = new Map<RegExp, boolean>();
  for (const { rule, index } of PHRASES.matches(words)) {
    if (rule.notAfter?.test(words.slice(Math.max(0, index - NOT_AFTER_REACH), index))) continue;
    if (rule.context) {
      let found = contextFound.get(rule.context);
      if (found === undefined) contextFound.set(rule.context, (found = rule.context.test(words)));
      if (!found) continue;
    }
    yield { category: rule.category, rule: rule.id, index };
  }
  for (const { rule, start } of TERMS.hits(occurrences)) yield { category: rule.category, rule: rule.id, index: start };
}

function asksAboutQuotation(occurrences: readonly Occurrence[], quotes: readonly QuoteSpan[]): boolean {
  let asks = false;
  for (const { start, groups } of occurrences) {
    if (!(groups & (DEFENSIVE | EXECUTE)) || isQuoted(quotes, start)) continue;
    if (groups & EXECUTE) return false;
    asks = true;
  }
  return asks;
}

function firstOf<T, R>(items: readonly T[], find: (item: T) => R | undefined): R | undefined {
  for (const item of items) {
    const found = find(item);
    if (found) return found;
  }
  return undefined;
}
