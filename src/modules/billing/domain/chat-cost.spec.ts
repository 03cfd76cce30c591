import fc from 'fast-check';
import { formatUsdc, parseUsdc } from './atomic-usdc';
import { billedCompletionTokens, chatCost, type TokenRates } from './chat-cost';

const rates = (input: string, output: string): TokenRates => ({
  inputAtomicPerMillion: parseUsdc(input) as bigint,
  outputAtomicPerMillion: parseUsdc(output) as bigint,
});

describe('chatCost: exact vectors', () => {
  it('prices the worked example: 1 in, 8,192 out at 0.30 / 2.50 is 21,505 atomic units', () => {
    // (1 x 300,000 + 8,192 x 2,500,000) x 105 / 10^8 = 21,504.315, rounded up once.
    expect(chatCost(1, 8192, rates('0.30', '2.50'))).toEqual({ total: 21_505n, providerCost: 20_481n, platformFee: 1_024n });
  });

  it('prices 1,000 in and 8,192 out at 1.75 / 14.00: 122,259.9 rounds up to 122,260', () => {
    expect(chatCost(1000, 8192, rates('1.75', '14.00'))).toEqual({ total: 122_260n, providerCost: 116_438n, platformFee: 5_822n });
  });

  it('rounds a fraction of an atomic unit up, never down', () => {
    // 1 x 100,000 x 105 / 10^8 = 0.105 atomic units.
    expect(chatCost(1, 0, rates('0.10', '0.40'))).toEqual({ total: 1n, providerCost: 1n, platformFee: 0n });
  });

  it('charges exactly 0 for zero-priced models, whatever the size', () => {
    expect(chatCost(1_000_000, 8192, rates('0', '0'))).toEqual({ total: 0n, providerCost: 0n, platformFee: 0n });
  });

  it('stays exact far beyond floating-point precision', () => {
    // 10^9 tokens each way at 999 / 999 USDC per million: 1,998,000 USDC of provider cost.
    const cost = chatCost(1_000_000_000, 1_000_000_000, rates('999', '999'));
    expect(cost.providerCost).toBe(1_998_000_000_000n);
    expect(cost.total).toBe(2_097_900_000_000n);
  });
});

describe('billedCompletionTokens', () => {
  it('is min(max_tokens, model max output, 8192)', () => {
    expect(billedCompletionTokens(undefined, 16384)).toBe(8192);
    expect(billedCompletionTokens(undefined, 4096)).toBe(4096);
    expect(billedCompletionTokens(1_000_000_000, 16384)).toBe(8192);
    expect(billedCompletionTokens(1_000_000_000, 4096)).toBe(4096);
    expect(billedCompletionTokens(10, 16384)).toBe(10);
    expect(billedCompletionTokens(1, 4096)).toBe(1);
  });
});

describe('chatCost: properties', () => {
  const tokens = fc.integer({ min: 0, max: 2_000_000 });
  const rate = fc.bigInt({ min: 0n, max: 200_000_000n }); // up to 200 USDC per million tokens
  const anyRates = fc.record({ inputAtomicPerMillion: rate, outputAtomicPerMillion: rate });

  it('total = provider_cost + platform_fee', () => {
    fc.assert(
      fc.property(tokens, tokens, anyRates, (input, output, r) => {
        const cost = chatCost(input, output, r);
        expect(cost.total).toBe(cost.providerCost + cost.platformFee);
      }),
    );
  });

  it('the fee is within one atomic unit of 5 percent of the provider cost', () => {
    fc.assert(
      fc.property(tokens, tokens, anyRates, (input, output, r) => {
        const { providerCost, platformFee } = chatCost(input, output, r);
        // |fee - providerCost x 5 / 100| <= 1, kept in integers: |100 fee - 5 providerCost| <= 100.
        const gap = platformFee * 100n - providerCost * 5n;
        expect(gap >= -100n && gap <= 100n).toBe(true);
      }),
    );
  });

  it('never falls when tokens rise', () => {
    fc.assert(
      fc.property(tokens, tokens, fc.nat(10_000), fc.nat(10_000), anyRates, (input, output, moreIn, moreOut, r) => {
        expect(chatCost(input + moreIn, output + moreOut, r).total >= chatCost(input, output, r).total).toBe(true);
      }),
    );
  });

  it('is at least the exact 105 percent of the provider cost, and less than one unit above it', () => {
    fc.assert(
      fc.property(tokens, tokens, anyRates, (input, output, r) => {
        const scaled = BigInt(input) * r.inputAtomicPerMillion + BigInt(output) * r.outputAtomicPerMillion;
        const { total } = chatCost(input, output, r);
        expect(total * 100_000_000n >= scaled * 105n).toBe(true);
        expect((total - 1n) * 100_000_000n < scaled * 105n).toBe(true);
      }),
    );
  });
});

describe('atomic USDC strings', () => {
  it('parses decimals with up to 6 places exactly', () => {
    expect(parseUsdc('0')).toBe(0n);
    expect(parseUsdc('1.75')).toBe(1_750_000n);
    expect(parseUsdc('0.000001')).toBe(1n);
    expect(parseUsdc('14.00')).toBe(14_000_000n);
    for (const bad of ['', '-1', '1.0000001', '1e3', '0x10', ' 1', '1.', '.5', 'NaN']) expect(parseUsdc(bad)).toBeNull();
  });

  it('formats with exactly 6 decimals', () => {
    expect(formatUsdc(21_505n)).toBe('0.021505');
    expect(formatUsdc(0n)).toBe('0.000000');
    expect(formatUsdc(10_500n)).toBe('0.010500');
    expect(formatUsdc(123_456_789_012n)).toBe('123456.789012');
  });
});
