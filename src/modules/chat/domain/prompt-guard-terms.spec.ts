import { TermFamilies, type TermFamiliesData } from './prompt-guard-terms';

const data = (window: number): TermFamiliesData => ({
  groups: { verb: { terms: { en: ['ignore'] } }, object: { terms: { en: ['instructions'] } } },
  blockers: { terms: {} },
  rules: [{ id: 'ignore-instructions', category: 'injection', all: ['verb', 'object'], window }],
});

const hitsIn = (terms: TermFamilies, text: string) => [...terms.hits(terms.occurrences(text))].map(({ rule, start, end }) => ({ rule: rule.id, start, end }));

describe('TermFamilies', () => {
  it('hits a rule only where all of its groups occur within its window', () => {
    const terms = new TermFamilies(data(30));
    expect(hitsIn(terms, 'please ignore the instructions')).toEqual([{ rule: 'ignore-instructions', start: 7, end: 30 }]);
    expect(hitsIn(terms, 'please ignore this')).toEqual([]);
    expect(hitsIn(terms, `ignore ${'x '.repeat(20)}instructions`)).toEqual([]);
  });

  it('refuses a rule without a finite window', () => {
    expect(() => new TermFamilies(data(Infinity))).toThrow('term families: rule ignore-instructions needs a finite window');
    expect(() => new TermFamilies(data(-1))).toThrow('needs a finite window');
  });
});
