import type { ChatRequest } from '../../providers/domain/chat-request';

/**
 * Words that make a tool name a market-data tool (docs/decisions.md, "Market-data tools"): its
 * answers go stale within seconds, so spec 1.7 never caches them. The gateway's own price tool,
 * `token-price`, matches through `price`.
 */
const MARKET_DATA_WORDS: ReadonlySet<string> = new Set([
  'price',
  'prices',
  'pricing',
  'quote',
  'quotes',
  'ticker',
  'tickers',
  'market',
  'markets',
  'marketdata',
  'stock',
  'stocks',
  'forex',
  'ohlc',
  'ohlcv',
  'orderbook',
]);

/**
 * Whether a request involves a market-data tool: one offered in `tools`, forced by `tool_choice`,
 * or called earlier in the conversation, whose answer (a price) is then in the messages: an
 * assistant's call by that name, or a tool message naming it.
 */
export function involvesMarketData(request: ChatRequest): boolean {
  if (request.tools?.some((tool) => isMarketDataTool(tool.function.name))) return true;
  const choice = request.tool_choice;
  if (typeof choice === 'object' && isMarketDataTool(choice.function.name)) return true;
  return request.messages.some(
    (message) => message.tool_calls?.some((call) => isMarketDataTool(call.function.name)) === true || (message.role === 'tool' && message.name !== undefined && isMarketDataTool(message.name)),
  );
}

/** Whether one of the name's words (`get_stock_price`, `fetchQuote`, `BTCTicker`) is a market-data word. */
export function isMarketDataTool(name: string): boolean {
  return nameWords(name).some((word) => MARKET_DATA_WORDS.has(word));
}

/**
 * A tool name's words, lower-cased, in one pass: runs of letters, split where a lower-case letter
 * meets an upper-case one (`getPrice`) and before the last capital of an acronym that a word
 * follows (`BTCPrice`). Digits, `_`, `-` and anything else separate words.
 */
function nameWords(name: string): string[] {
  const words: string[] = [];
  let word = '';
  for (let i = 0; i < name.length; i++) {
    const char = name[i];
    const upper = char >= 'A' && char <= 'Z';
    if (!upper && !(char >= 'a' && char <= 'z')) {
      if (word) words.push(word.toLowerCase());
      word = '';
      continue;
    }
    const previous = name[i - 1] ?? '';
    const next = name[i + 1] ?? '';
    const afterLower = previous >= 'a' && previous <= 'z';
    const acronymEnds = previous >= 'A' && previous <= 'Z' && next >= 'a' && next <= 'z';
    if (upper && word && (afterLower || acronymEnds)) {
      words.push(word.toLowerCase());
      word = '';
    }
    word += char;
  }
  if (word) words.push(word.toLowerCase());
  return words;
}
