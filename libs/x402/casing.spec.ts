import { inBothCasings, inOneCasing } from './casing';

describe('the two casings of one record', () => {
  it('spells every multi-word field both ways, and a one-word field once', () => {
    expect(inBothCasings({ pay_to: 'A', maxTimeoutSeconds: 60, scheme: 'exact' })).toEqual({ pay_to: 'A', payTo: 'A', max_timeout_seconds: 60, maxTimeoutSeconds: 60, scheme: 'exact' });
  });

  it('reads a dual-cased record in either casing, and refuses one whose spellings disagree', () => {
    const dual = inBothCasings({ pay_to: 'A', extra: { feePayer: 'F' } });
    expect(inOneCasing(dual, 'camel')).toEqual({ payTo: 'A', extra: { feePayer: 'F' } });
    expect(inOneCasing(dual, 'snake')).toEqual({ pay_to: 'A', extra: { feePayer: 'F' } });
    expect(inOneCasing({ pay_to: 'A', payTo: 'B' }, 'camel')).toBeNull();
  });
});
