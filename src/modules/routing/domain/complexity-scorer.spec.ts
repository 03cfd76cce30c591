import promptSet from '../../../../test/data/router-prompt-set.json';
import { TIERS, type Tier } from './catalog';
import { scoreComplexity } from './complexity-scorer';
import { routingText } from './routing-text';

interface LabelledPrompt {
  id: string;
  tier: Tier;
  split: 'tune' | 'holdout';
  messages: Array<{ role: string; content: string }>;
  tools: boolean;
}

const prompts = promptSet as LabelledPrompt[];

function accuracy(subset: LabelledPrompt[]): { overall: number; perTier: Record<Tier, string> } {
  const hits = subset.map((p) => scoreComplexity({ userText: routingText(p.messages, (m) => m.content), messageCount: p.messages.length, usesTools: p.tools }).tier === p.tier);
  const perTier = {} as Record<Tier, string>;
  for (const tier of TIERS) {
    const inTier = subset.map((p, i) => [p, hits[i]] as const).filter(([p]) => p.tier === tier);
    perTier[tier] = `${inTier.filter(([, hit]) => hit).length}/${inTier.length}`;
  }
  return { overall: hits.filter(Boolean).length / subset.length, perTier };
}

describe('the smart router on the labelled prompt set', () => {
  it('has at least 40 prompts per tier, a third of them held out from tuning', () => {
    for (const tier of TIERS) {
      const inTier = prompts.filter((p) => p.tier === tier);
      expect(inTier.length).toBeGreaterThanOrEqual(40);
      expect(inTier.filter((p) => p.split === 'holdout').length).toBe(Math.floor(inTier.length / 3));
    }
  });

  it('places at least 85 percent of the held-out third, and of the whole set, in their labelled tier', () => {
    const holdout = accuracy(prompts.filter((p) => p.split === 'holdout'));
    const whole = accuracy(prompts);
    process.stdout.write(
      `router accuracy: held-out ${(holdout.overall * 100).toFixed(1)}% ${JSON.stringify(holdout.perTier)}; whole set ${(whole.overall * 100).toFixed(1)}% ${JSON.stringify(whole.perTier)}\n`,
    );
    expect(holdout.overall).toBeGreaterThanOrEqual(0.85);
    expect(whole.overall).toBeGreaterThanOrEqual(0.85);
  });
});

describe('scoreComplexity', () => {
  const tierOf = (text: string, extra: Partial<{ messageCount: number; usesTools: boolean }> = {}): Tier => scoreComplexity({ userText: text, messageCount: 1, usesTools: false, ...extra }).tier;

  it('matches keywords on word boundaries only ("hi" is not in "this", "no" not in "know")', () => {
    const withBoundaries = scoreComplexity({ userText: 'this is something i know', messageCount: 1, usesTools: false });
    expect(withBoundaries.signals.simpleIndicators).toBe(0);
    expect(scoreComplexity({ userText: 'hi, no thanks', messageCount: 1, usesTools: false }).signals.simpleIndicators).toBe(-1);
  });

  it('puts a proof asked step by step in Reasoning, which the public baseline put in Medium', () => {
    expect(tierOf('Prove that P != NP is not provable in this formal system, step by step.')).toBe('Reasoning');
  });

  it('counts tools in the request', () => {
    const base = { userText: 'Look up the order and update its shipping address.', messageCount: 1 };
    expect(scoreComplexity({ ...base, usesTools: true }).score).toBeGreaterThan(scoreComplexity({ ...base, usesTools: false }).score);
  });

  it('reads CJK keywords without word boundaries', () => {
    expect(scoreComplexity({ userText: '请证明根号2是无理数', messageCount: 1, usesTools: false }).signals.reasoningMarkers).toBeGreaterThan(0);
  });

  it('is deterministic and handles empty text', () => {
    expect(scoreComplexity({ userText: '', messageCount: 1, usesTools: false })).toEqual(scoreComplexity({ userText: '', messageCount: 1, usesTools: false }));
    expect(tierOf('hello')).toBe('Simple');
  });
});
