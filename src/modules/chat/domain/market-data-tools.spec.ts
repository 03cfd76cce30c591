import type { ChatRequest } from '../../providers/domain/chat-request';
import { involvesMarketData, isMarketDataTool } from './market-data-tools';

const tool = (name: string) => ({ type: 'function' as const, function: { name, parameters: { type: 'object' } } });

describe('market-data tools', () => {
  it.each(['token-price', 'get_stock_price', 'fetchQuote', 'BTCTicker', 'market_data', 'getOHLCV', 'Prices', 'crypto-markets'])('%s is one', (name) => {
    expect(isMarketDataTool(name)).toBe(true);
  });

  it.each(['get_weather', 'priceless', 'supermarketing', 'quoted_reply', 'search', 'unquote', 'PRICELIST'])('%s is not', (name) => {
    expect(isMarketDataTool(name)).toBe(false);
  });

  const base: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

  it('is involved when offered, forced, or called earlier in the conversation', () => {
    expect(involvesMarketData({ ...base, tools: [tool('get_weather'), tool('get_quote')] })).toBe(true);
    expect(involvesMarketData({ ...base, tool_choice: { type: 'function', function: { name: 'token_price' } } })).toBe(true);
    expect(
      involvesMarketData({
        ...base,
        messages: [
          { role: 'user', content: 'SOL?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'token-price', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: '{"usd_price":150}' },
        ],
      }),
    ).toBe(true);
    expect(involvesMarketData({ ...base, messages: [{ role: 'tool', tool_call_id: 'c1', name: 'stock_quote', content: '1' }] })).toBe(true);
  });

  it('is not involved otherwise', () => {
    expect(involvesMarketData(base)).toBe(false);
    expect(involvesMarketData({ ...base, tools: [tool('get_weather')], tool_choice: 'auto' })).toBe(false);
  });

  it('splits a long name of alternating case into its words', () => {
    const name = 'aB'.repeat(500_000);
    expect(isMarketDataTool(name)).toBe(false);
    expect(isMarketDataTool(`${name}Price`)).toBe(true);
  });
});
