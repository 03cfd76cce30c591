import fc from 'fast-check';
import { parseServicePrice, priceUsdc, pricingLabel, withFee } from './service-price';

describe('parseServicePrice', () => {
  it('reads numbers and decimal strings exactly, as atomic USDC', () => {
    expect(parseServicePrice(0.01)).toBe(10_000n);
    expect(parseServicePrice(0.001)).toBe(1_000n);
    expect(parseServicePrice('0.01')).toBe(10_000n);
    expect(parseServicePrice(0.3)).toBe(300_000n);
    expect(parseServicePrice(0.000001)).toBe(1n);
    expect(parseServicePrice('0.000001')).toBe(1n);
    expect(parseServicePrice(0)).toBe(0n);
    expect(parseServicePrice('0')).toBe(0n);
    expect(parseServicePrice(12)).toBe(12_000_000n);
    expect(parseServicePrice('123456789012.345678')).toBe(123_456_789_012_345_678n);
  });

  it('takes null as unpriced', () => {
    expect(parseServicePrice(null)).toBeNull();
  });

  it('refuses what floating point would only approximate: more than 6 decimals, exponents', () => {
    // 0.1 + 0.2 is 0.30000000000000004: refused rather than rounded.
    expect(parseServicePrice(0.1 + 0.2)).toBeUndefined();
    expect(parseServicePrice('0.0000001')).toBeUndefined();
    expect(parseServicePrice(0.0000001)).toBeUndefined();
    expect(parseServicePrice(1e-7)).toBeUndefined();
    expect(parseServicePrice(1e21)).toBeUndefined();
    expect(parseServicePrice('1e-3')).toBeUndefined();
    expect(parseServicePrice('1E2')).toBeUndefined();
  });

  it('refuses negatives, non-numbers and malformed decimals', () => {
    for (const value of [-0.01, '-0.01', -1, NaN, Infinity, -Infinity, 'NaN', 'Infinity', '', ' 1', '1 ', '+1', '.5', '5.', '0x10', '1,5', 'abc', true, false, undefined, {}, [], [1], 10n]) {
      expect(parseServicePrice(value)).toBeUndefined();
    }
  });

  it('agrees with the decimal text of any amount of at most 6 decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), (atomic) => {
        const text = `${atomic / 1_000_000n}.${(atomic % 1_000_000n).toString().padStart(6, '0')}`;
        expect(parseServicePrice(text)).toBe(atomic);
        // At most 15 significant digits: a double keeps them and String(n) writes them back unchanged.
        expect(parseServicePrice(Number(text))).toBe(atomic);
      }),
    );
  });
});

describe('withFee', () => {
  it('adds the 5 percent fee, rounded up once', () => {
    expect(withFee(10_000n)).toEqual({ total: 10_500n, providerCost: 10_000n, platformFee: 500n });
    expect(withFee(1_000n)).toEqual({ total: 1_050n, providerCost: 1_000n, platformFee: 50n });
    expect(withFee(1n)).toEqual({ total: 2n, providerCost: 1n, platformFee: 1n });
    expect(withFee(20n)).toEqual({ total: 21n, providerCost: 20n, platformFee: 1n });
    expect(withFee(0n)).toEqual({ total: 0n, providerCost: 0n, platformFee: 0n });
  });

  it('is ceil(price x 105 / 100) and always adds up', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), (price) => {
        const { total, providerCost, platformFee } = withFee(price);
        expect(providerCost).toBe(price);
        expect(total).toBe(providerCost + platformFee);
        expect(total * 100n >= price * 105n).toBe(true);
        expect((total - 1n) * 100n < price * 105n).toBe(true);
      }),
    );
  });

  it('refuses a negative price', () => {
    expect(() => withFee(-1n)).toThrow(RangeError);
  });
});

describe('pricingLabel', () => {
  it('shows the total with the fee, trailing zeros trimmed to at least two decimals', () => {
    expect(pricingLabel(10_000n)).toBe('$0.0105 per request (5% fee included)');
    expect(pricingLabel(1_000n)).toBe('$0.00105 per request (5% fee included)');
    expect(pricingLabel(1_000_000n)).toBe('$1.05 per request (5% fee included)');
    expect(pricingLabel(100_000n)).toBe('$0.105 per request (5% fee included)');
    expect(pricingLabel(20_000_000n)).toBe('$21.00 per request (5% fee included)');
    expect(pricingLabel(1n)).toBe('$0.000002 per request (5% fee included)');
    expect(pricingLabel(0n)).toBe('$0.00 per request (5% fee included)');
  });

  it('says when a service is not priced', () => {
    expect(pricingLabel(null)).toBe('not priced');
  });
});

describe('priceUsdc', () => {
  it('is the flat price before the fee, as a number for the wire', () => {
    expect(priceUsdc(10_000n)).toBe(0.01);
    expect(priceUsdc(1_000n)).toBe(0.001);
    expect(priceUsdc(0n)).toBe(0);
    expect(priceUsdc(1_500_000n)).toBe(1.5);
    expect(priceUsdc(null)).toBeNull();
  });
});
