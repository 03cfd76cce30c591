/**
 * How the router's weights were fitted (docs/routing.md): on the tune split of the labelled
 * prompt set only, two regularised logistic models over the scorer's 15 signals, bagged over
 * bootstrap resamples:
 *   - Reasoning or not: logistic regression over the REASONING_EVIDENCE dimensions;
 *   - Simple < Medium < Complex: a proportional-odds model over all 15 dimensions (weights kept
 *     non-negative so each dimension pushes the way its name says).
 * Prints repeated 3-fold cross-validation accuracy within the tune split, writes the fitted values
 * to router-data/weights.json (the same bytes for the same values) and lists those that changed.
 * The held-out split is never read here.
 *   npm run tune:router
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TIERS, type Tier } from '../../src/modules/routing/domain/catalog';
import { scoreComplexity } from '../../src/modules/routing/domain/complexity-scorer';
import { routingText } from '../../src/modules/routing/domain/routing-text';
import { DIMENSIONS, EVIDENCE_DIMENSIONS, formatWeights, parseWeights, type RouterWeights } from '../../src/modules/routing/domain/routing-rules';

interface Row {
  signals: number[];
  tier: number;
}
interface Model {
  evidence: number[];
  evidenceBias: number;
  weights: number[];
  cuts: [number, number];
}

const L2 = 0.003;
const BAGS = 15;
const REASONING = TIERS.indexOf('Reasoning');
const evidenceDims = EVIDENCE_DIMENSIONS.map((d) => DIMENSIONS.indexOf(d));
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
const dot = (w: number[], x: number[], dims?: number[]): number => (dims ?? w.map((_, i) => i)).reduce((sum, d, j) => sum + w[dims ? j : d] * x[d], 0);

function seeded(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function fitOnce(rows: Row[]): Model {
  const evidence = evidenceDims.map(() => 0);
  let evidenceBias = 0;
  for (let it = 0; it < 4000; it++) {
    const grad = evidence.map(() => 0);
    let gradBias = 0;
    for (const row of rows) {
      const err = sigmoid(dot(evidence, row.signals, evidenceDims) + evidenceBias) - (row.tier === REASONING ? 1 : 0);
      evidenceDims.forEach((d, j) => (grad[j] += err * row.signals[d]));
      gradBias += err;
    }
    evidence.forEach((_, j) => (evidence[j] -= 0.5 * (grad[j] / rows.length + L2 * evidence[j])));
    evidenceBias -= (0.5 * gradBias) / rows.length;
  }
  const ordinal = rows.filter((row) => row.tier !== REASONING);
  const weights = DIMENSIONS.map(() => 0);
  const cuts: [number, number] = [-0.5, 0.5];
  for (let it = 0; it < 6000; it++) {
    const grad = weights.map(() => 0);
    const gradCuts = [0, 0];
    for (const row of ordinal) {
      const score = dot(weights, row.signals);
      for (let k = 0; k < 2; k++) {
        const err = sigmoid(score - cuts[k]) - (row.tier > k ? 1 : 0);
        row.signals.forEach((v, i) => (grad[i] += err * v));
        gradCuts[k] -= err;
      }
    }
    weights.forEach((_, i) => (weights[i] = Math.max(0, weights[i] - 0.3 * (grad[i] / ordinal.length + L2 * weights[i]))));
    cuts[0] -= (0.3 * gradCuts[0]) / ordinal.length;
    cuts[1] -= (0.3 * gradCuts[1]) / ordinal.length;
  }
  return { evidence, evidenceBias, weights, cuts };
}

function fit(rows: Row[]): Model {
  const random = seeded(99);
  const models = Array.from({ length: BAGS }, () => fitOnce(rows.map(() => rows[Math.floor(random() * rows.length)])));
  const mean = (pick: (m: Model) => number[]): number[] => pick(models[0]).map((_, i) => models.reduce((sum, m) => sum + pick(m)[i], 0) / BAGS);
  const [evidenceBias] = mean((m) => [m.evidenceBias]);
  const [low, high] = mean((m) => m.cuts);
  return { evidence: mean((m) => m.evidence), evidenceBias, weights: mean((m) => m.weights), cuts: [low, high] };
}

function classify(model: Model, signals: number[]): number {
  if (dot(model.evidence, signals, evidenceDims) + model.evidenceBias >= 0) return REASONING;
  const score = dot(model.weights, signals);
  return score >= model.cuts[1] ? 2 : score >= model.cuts[0] ? 1 : 0;
}

function accuracy(model: Model, rows: Row[]): number {
  return rows.filter((row) => classify(model, row.signals) === row.tier).length / rows.length;
}

function main(): void {
  const path = join(__dirname, '../../../test/data/router-prompt-set.json');
  const prompts = JSON.parse(readFileSync(path, 'utf8')) as Array<{ tier: Tier; split: string; messages: Array<{ role: string; content: string }>; tools: boolean }>;
  const rows: Row[] = prompts
    .filter((p) => p.split === 'tune')
    .map((p) => {
      const { signals } = scoreComplexity({ userText: routingText(p.messages, (m) => m.content), messageCount: p.messages.length, usesTools: p.tools });
      return { signals: DIMENSIONS.map((d) => signals[d]), tier: TIERS.indexOf(p.tier) };
    });
  const random = seeded(7);
  const folds: number[] = [];
  for (let repeat = 0; repeat < 2; repeat++) {
    const shuffled = rows
      .map((row) => [random(), row] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, row]) => row);
    for (let k = 0; k < 3; k++)
      folds.push(
        accuracy(
          fit(shuffled.filter((_, i) => i % 3 !== k)),
          shuffled.filter((_, i) => i % 3 === k),
        ),
      );
  }
  const model = fit(rows);
  console.log(
    `tune split: ${rows.length} prompts; cross-validated accuracy ${((100 * folds.reduce((a, b) => a + b)) / folds.length).toFixed(1)}% (min fold ${(100 * Math.min(...folds)).toFixed(1)}%); fitted ${(100 * accuracy(model, rows)).toFixed(1)}%`,
  );
  const round = (n: number): number => Math.round(n * 100) / 100;
  const fitted: RouterWeights = {
    reasoningEvidence: Object.fromEntries(EVIDENCE_DIMENSIONS.map((d, j) => [d, round(model.evidence[j])])) as RouterWeights['reasoningEvidence'],
    reasoningThreshold: round(-model.evidenceBias),
    weights: Object.fromEntries(DIMENSIONS.map((d, i) => [d, round(model.weights[i])])) as RouterWeights['weights'],
    tierThresholds: { Complex: round(model.cuts[1]), Medium: round(model.cuts[0]) },
  };
  const file = join(__dirname, '../../../src/modules/routing/domain/router-data/weights.json');
  const before = new Map(flatten(parseWeights(JSON.parse(readFileSync(file, 'utf8')))));
  writeFileSync(file, formatWeights(fitted));
  const changed = flatten(fitted).filter(([name, value]) => before.get(name) !== value);
  console.log(`router-data/weights.json: ${changed.length === 0 ? 'unchanged' : `${changed.length} values changed`}`);
  for (const [name, value] of changed) console.log(`  ${name}: ${before.get(name)} -> ${value}`);
}

/** Every fitted number by its path in weights.json (`weights.tokenCount`). */
function flatten(fitted: RouterWeights): Array<[string, number]> {
  return Object.entries(fitted).flatMap(([key, value]: [string, number | Record<string, number>]) =>
    typeof value === 'number' ? [[key, value] as [string, number]] : Object.entries(value).map(([name, n]): [string, number] => [`${key}.${name}`, n]),
  );
}

main();
