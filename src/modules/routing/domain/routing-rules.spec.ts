import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import keywordsFile from './router-data/keywords.json';
import weightsFile from './router-data/weights.json';
import { formatWeights, KEYWORD_LISTS, parseKeywords, parseWeights, RouterDataError } from './routing-rules';

/** A deep copy of `file` with `change` applied, for one malformed variant at a time. */
function altered<T>(file: T, change: (copy: any) => void): unknown {
  const copy = structuredClone(file);
  change(copy);
  return copy;
}

describe('router-data/keywords.json', () => {
  it('holds every list the scorer reads', () => {
    const keywords = parseKeywords(keywordsFile);
    expect(Object.keys(keywords)).toEqual([...KEYWORD_LISTS]);
    expect(keywords.proof).toContain('prove');
  });

  it.each([
    ['a list missing', (f: any) => delete f.lists.math, 'router-data/keywords.json: lists is missing math'],
    ['an unknown list', (f: any) => (f.lists.maths = f.lists.math), 'router-data/keywords.json: lists has an unknown entry maths'],
    ['keywords not an array', (f: any) => (f.lists.code.keywords = 'function'), 'router-data/keywords.json: lists.code.keywords must be a non-empty array'],
    ['an empty list', (f: any) => (f.lists.code.keywords = []), 'router-data/keywords.json: lists.code.keywords must be a non-empty array'],
    ['a number for a keyword', (f: any) => (f.lists.simple.keywords[2] = 7), 'router-data/keywords.json: lists.simple.keywords[2] must be a non-empty string'],
    ['an upper-case keyword, which would never match', (f: any) => (f.lists.proof.keywords[0] = 'Prove'), 'router-data/keywords.json: lists.proof.keywords[0] must be lower case'],
    ['a keyword without a word', (f: any) => (f.lists.proof.keywords[0] = '?!'), 'router-data/keywords.json: lists.proof.keywords[0] must be lower case'],
    ['a repeated keyword, which would count twice', (f: any) => f.lists.proof.keywords.push('prove'), 'router-data/keywords.json: lists.proof.keywords[53] repeats "prove"'],
    ['no about', (f: any) => delete f.lists.proof.about, 'router-data/keywords.json: lists.proof is missing about'],
  ])('refuses %s, naming the entry', (_case, change, message) => {
    expect(() => parseKeywords(altered(keywordsFile, change))).toThrow(RouterDataError);
    expect(() => parseKeywords(altered(keywordsFile, change))).toThrow(message);
  });

  it('refuses a file that is not an object', () => {
    expect(() => parseKeywords([])).toThrow('router-data/keywords.json: the file must be an object');
  });
});

describe('router-data/weights.json', () => {
  it('is exactly what the tuner writes for its own values, so a refit to the same values changes no byte', () => {
    const text = readFileSync(join(__dirname, 'router-data', 'weights.json'), 'utf8');
    expect(formatWeights(parseWeights(JSON.parse(text)))).toBe(text);
  });

  it.each([
    ['a weight missing', (f: any) => delete f.weights.toolUsage, 'router-data/weights.json: weights is missing toolUsage'],
    ['an unknown weight', (f: any) => (f.weights.toolUse = 1), 'router-data/weights.json: weights has an unknown entry toolUse'],
    ['a weight as a string', (f: any) => (f.weights.tokenCount = '3.93'), 'router-data/weights.json: weights.tokenCount must be a finite number (got "3.93")'],
    ['a negative weight', (f: any) => (f.weights.tokenCount = -1), 'router-data/weights.json: weights.tokenCount must not be negative'],
    ['an evidence dimension missing', (f: any) => delete f.reasoningEvidence.mathAndLogic, 'router-data/weights.json: reasoningEvidence is missing mathAndLogic'],
    ['no reasoning threshold', (f: any) => (f.reasoningThreshold = null), 'router-data/weights.json: reasoningThreshold must be a finite number (got null)'],
    ['Medium above Complex', (f: any) => (f.tierThresholds.Medium = 3), 'router-data/weights.json: tierThresholds.Medium must not be above Complex'],
    ['a tier missing', (f: any) => delete f.tierThresholds.Complex, 'router-data/weights.json: tierThresholds is missing Complex'],
  ])('refuses %s, naming the entry', (_case, change, message) => {
    expect(() => parseWeights(altered(weightsFile, change))).toThrow(RouterDataError);
    expect(() => parseWeights(altered(weightsFile, change))).toThrow(message);
  });
});
