import { findPii } from './pii-detectors';
import { guardViews } from './prompt-guard-normalise';
import { PhraseMatcher } from './prompt-guard-phrases';
import { PATTERN_RULES, type PatternRule } from './prompt-guard-rules';

export type GuardCategory = 'injection' | 'jailbreak' | 'pii';

/** `rule` is for logs and metrics only; a blocked client only ever sees the fixed policy message. */
export type GuardVerdict =
  | { readonly blocked: false }
  | { readonly blocked: true; readonly category: GuardCategory; readonly rule: string };

const PASSED: GuardVerdict = { blocked: false };

// How far before a phrase a `notAfter` condition (a negation, "my") is looked for.
const NOT_AFTER_REACH = 32;

const PHRASES = new PhraseMatcher(PATTERN_RULES);

/**
 * Blocks prompt injection, jailbreaks and high-risk PII before any payment work. Pass the text of
 * every message the request would forward to the provider (system, developer, user, tool and
 * assistant turns alike: a client writes all of them) and every text part.
 *
 * Linear in the input: patterns are compiled once, at module load, none can backtrack more than
 * a bounded amount per position, and the injection and jailbreak phrases are found in one scan.
 */
export class PromptGuard {
  inspect(texts: readonly string[]): GuardVerdict {
    for (const text of texts) {
      const { exact, words } = guardViews(text);
      const rule = firstAttack(words);
      if (rule) return { blocked: true, category: rule.category, rule: rule.id };
      const pii = findPii(exact);
      if (pii) return { blocked: true, category: 'pii', rule: pii };
    }
    return PASSED;
  }
}

function firstAttack(words: string): PatternRule | undefined {
  // A context is searched in the whole text: once per text, however often its phrase occurs.
  const contextFound = new Map<RegExp, boolean>();
  for (const { rule, index } of PHRASES.matches(words)) {
    if (rule.notAfter?.test(words.slice(Math.max(0, index - NOT_AFTER_REACH), index))) continue;
    if (rule.context) {
      let found = contextFound.get(rule.context);
      if (found === undefined) contextFound.set(rule.context, (found = rule.context.test(words)));
      if (!found) continue;
    }
    return rule;
  }
  return undefined;
}
