import type { Tier } from './catalog';
import keywordsFile from './router-data/keywords.json';
import weightsFile from './router-data/weights.json';

/**
 * The smart router's rules (docs/routing.md). Its data is in router-data/: the keyword lists
 * (keywords.json, written by hand) and the fitted weights (weights.json, written by
 * `npm run tune:router`). Both are imported as JSON modules, so jest and the compiled `dist` build
 * read the same files, and checked here at module load: a malformed file stops the start with a
 * message naming the file and the entry, instead of routing on a silently missing list or weight.
 */

/** A router-data file that cannot be used; the message names the file and the entry at fault. */
export class RouterDataError extends Error {
  override name = 'RouterDataError';
}

/** The lists the scorer reads (complexity-scorer.ts): keywords.json holds exactly these. */
export const KEYWORD_LISTS = ['proof', 'reasoning', 'technical', 'creative', 'openEnded', 'simple', 'multiStep', 'agentic', 'math', 'outputFormat', 'domain', 'code'] as const;
export type KeywordList = (typeof KEYWORD_LISTS)[number];

export const DIMENSIONS = [
  'tokenCount',
  'codePresence',
  'reasoningMarkers',
  'technicalTerms',
  'creativeMarkers',
  'simpleIndicators',
  'multiStep',
  'questionComplexity',
  'agenticMarkers',
  'mathAndLogic',
  'languageComplexity',
  'conversationDepth',
  'toolUsage',
  'outputFormat',
  'domainSpecificity',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/**
 * Reasoning is a kind of difficulty, not of size, so it is decided apart from the summed score:
 * a request is Reasoning when its reasoning evidence, a weighted sum of these dimensions (proof and
 * reasoning markers, mathematics and logic, less code, building and technical vocabulary, which
 * mark a debugging or engineering task), reaches the fitted threshold. Otherwise the weighted sum
 * of all 15 dimensions picks Simple, Medium or Complex. The order is the one the tuner fits in.
 */
export const EVIDENCE_DIMENSIONS = ['reasoningMarkers', 'mathAndLogic', 'codePresence', 'multiStep', 'technicalTerms', 'tokenCount'] as const satisfies readonly Dimension[];
type EvidenceDimension = (typeof EVIDENCE_DIMENSIONS)[number];

/** The tiers the summed score places, highest first, as weights.json's `tierThresholds` holds them. */
const SCORED_TIERS = ['Complex', 'Medium'] as const satisfies readonly Tier[];

/**
 * What `npm run tune:router` fits on the tune split of test/data/router-prompt-set.json
 * (docs/routing.md says how). `weights` times each dimension's signal (about -1 to 1), summed,
 * places a request that is not Reasoning: Simple below `tierThresholds.Medium`, Complex from
 * `tierThresholds.Complex`; zero means the dimension speaks only through the reasoning evidence.
 */
export interface RouterWeights {
  readonly reasoningEvidence: Readonly<Record<EvidenceDimension, number>>;
  readonly reasoningThreshold: number;
  readonly weights: Readonly<Record<Dimension, number>>;
  readonly tierThresholds: Readonly<Record<(typeof SCORED_TIERS)[number], number>>;
}

export const KEYWORDS = parseKeywords(keywordsFile);
const FITTED = parseWeights(weightsFile);
export const REASONING_EVIDENCE: Readonly<Partial<Record<Dimension, number>>> = FITTED.reasoningEvidence;
export const REASONING_THRESHOLD = FITTED.reasoningThreshold;
export const WEIGHTS = FITTED.weights;
/** The lowest summed score of Complex and Medium. */
export const TIER_THRESHOLDS: ReadonlyArray<readonly [Tier, number]> = SCORED_TIERS.map((tier) => [tier, FITTED.tierThresholds[tier]] as const);

/** Keyword density: 0 hits 0, 1 hit 0.3, 2 hits 0.6, 3 or more 1.0. */
export const KEYWORD_DENSITY = [0, 0.3, 0.6, 1] as const;

/**
 * Length in words (a CJK character counts as one), on a log scale: LENGTH_PIVOT_WORDS gives 0, each
 * doubling adds LENGTH_SLOPE, clamped to -1..1 (about 4 words is -1, 512 words +1 with the defaults).
 */
export const LENGTH_PIVOT_WORDS = 45;
export const LENGTH_SLOPE = 0.33;
/** What a pasted word counts for, against a word of the ask itself. */
export const PASTED_WORD_SHARE = 0.25;

// ---------------------------------------------------------------------------------------------
// Reading and writing router-data

type Fail = (where: string, problem: string) => never;

function failIn(file: string): Fail {
  return (where, problem) => {
    throw new RouterDataError(`router-data/${file}: ${where} ${problem}`);
  };
}

/** keywords.json checked: exactly the lists the scorer reads, each of distinct lower-case entries. */
export function parseKeywords(raw: unknown): Readonly<Record<KeywordList, readonly string[]>> {
  const fail = failIn('keywords.json');
  const file = entries(raw, ['about', 'lists'], 'the file', fail);
  text(file.about, 'about', fail);
  const lists = entries(file.lists, KEYWORD_LISTS, 'lists', fail);
  const result = {} as Record<KeywordList, readonly string[]>;
  for (const name of KEYWORD_LISTS) {
    const list = entries(lists[name], ['about', 'keywords'], `lists.${name}`, fail);
    text(list.about, `lists.${name}.about`, fail);
    const where = `lists.${name}.keywords`;
    if (!Array.isArray(list.keywords) || list.keywords.length === 0) return fail(where, 'must be a non-empty array');
    const seen = new Set<string>();
    result[name] = list.keywords.map((keyword: unknown, index) => {
      const at = `${where}[${index}]`;
      text(keyword, at, fail);
      // The scorer matches the lower-cased text word by word: any other entry would never match.
      if (keyword !== keyword.toLowerCase() || keyword !== keyword.trim() || !/[\p{L}\p{N}]/u.test(keyword)) {
        fail(at, `must be lower case, without surrounding spaces, and hold a letter or digit (got ${JSON.stringify(keyword)})`);
      }
      // A repeated entry would count each occurrence twice.
      if (seen.has(keyword)) fail(at, `repeats ${JSON.stringify(keyword)}`);
      seen.add(keyword);
      return keyword;
    });
  }
  return result;
}

/** weights.json checked: every fitted number present, finite, and no unknown entry. */
export function parseWeights(raw: unknown): RouterWeights {
  const fail = failIn('weights.json');
  const file = entries(raw, ['about', 'reasoningEvidence', 'reasoningThreshold', 'weights', 'tierThresholds'], 'the file', fail);
  text(file.about, 'about', fail);
  const numbers = <K extends string>(value: unknown, keys: readonly K[], where: string): Record<K, number> => {
    const found = entries(value, keys, where, fail);
    for (const key of keys) number(found[key], `${where}.${key}`, fail);
    return found as Record<K, number>;
  };
  const weights = numbers(file.weights, DIMENSIONS, 'weights');
  // Non-negative, so each dimension pushes the way its name says (the tuner keeps them so).
  for (const dimension of DIMENSIONS) if (weights[dimension] < 0) fail(`weights.${dimension}`, `must not be negative (got ${weights[dimension]})`);
  const tierThresholds = numbers(file.tierThresholds, SCORED_TIERS, 'tierThresholds');
  if (tierThresholds.Medium > tierThresholds.Complex) fail('tierThresholds.Medium', `must not be above Complex (got ${tierThresholds.Medium} > ${tierThresholds.Complex})`);
  return {
    reasoningEvidence: numbers(file.reasoningEvidence, EVIDENCE_DIMENSIONS, 'reasoningEvidence'),
    reasoningThreshold: number(file.reasoningThreshold, 'reasoningThreshold', fail),
    weights,
    tierThresholds,
  };
}

const WEIGHTS_ABOUT =
  'Fitted weights of the smart router (routing-rules.ts), written by `npm run tune:router` on the tune split of test/data/router-prompt-set.json: refit rather than edit by hand. See docs/routing.md.';

/** weights.json as the tuner writes it: fixed key order, two-space indent, a final newline. */
export function formatWeights(fitted: RouterWeights): string {
  const ordered = <K extends string>(keys: readonly K[], values: Readonly<Record<K, number>>): Record<K, number> => Object.fromEntries(keys.map((key) => [key, values[key]])) as Record<K, number>;
  const file = {
    about: WEIGHTS_ABOUT,
    reasoningEvidence: ordered(EVIDENCE_DIMENSIONS, fitted.reasoningEvidence),
    reasoningThreshold: fitted.reasoningThreshold,
    weights: ordered(DIMENSIONS, fitted.weights),
    tierThresholds: ordered(SCORED_TIERS, fitted.tierThresholds),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** `value` as an object holding exactly `keys`. */
function entries<K extends string>(value: unknown, keys: readonly K[], where: string, fail: Fail): Record<K, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(where, 'must be an object');
  for (const key of keys) if (!Object.hasOwn(value, key)) fail(where, `is missing ${key}`);
  for (const key of Object.keys(value)) if (!(keys as readonly string[]).includes(key)) fail(where, `has an unknown entry ${key} (expected ${keys.join(', ')})`);
  return value as Record<K, unknown>;
}

function text(value: unknown, where: string, fail: Fail): asserts value is string {
  if (typeof value !== 'string' || value === '') fail(where, 'must be a non-empty string');
}

function number(value: unknown, where: string, fail: Fail): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fail(where, `must be a finite number (got ${JSON.stringify(value)})`);
  return value;
}
