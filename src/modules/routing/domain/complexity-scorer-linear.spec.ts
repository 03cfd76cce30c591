import fc from 'fast-check';
import { describeDoubling, doublingRatio, MAX_DOUBLING_RATIO, repeatTo } from '../../../../test/support/linear-time';
import { scoreComplexity } from './complexity-scorer';
import { routingText } from './routing-text';

/**
 * The router scores unpaid user text before any payment, so its cost must grow linearly with the
 * text (docs/decisions.md, "Linear time outside the guard"): doubling the text at most roughly
 * doubles the time, for shapes aimed at each of the scorer's scans.
 */

type Shape = readonly [string, (length: number) => string];

const repeated = (unit: string) => (length: number) => repeatTo(unit, length);
const nested = (open: string, close: string) => (length: number) => open.repeat(length / 2) + close.repeat(length / 2);

const SHAPES: readonly Shape[] = [
  ['script switching ending in a Cyrillic sign', repeated('a' + 'ж\u0482'.repeat(64))],
  ['Latin and Cyrillic in one word', repeated('aж\u0482')],
  ['one long Latin word', repeated('a')],
  ['one long upper-case word', repeated('A')],
  ['one long Cyrillic word', repeated('ж')],
  ['one long Han run', repeated('中')],
  ['the first character of a CJK keyword, repeated', repeated('证')],
  ['a CJK keyword cut short, repeated', repeated('一步一')],
  ['one long digit run', repeated('1')],
  ['spaces', repeated(' ')],
  ['ideographic spaces', repeated('\u3000')],
  ['blank lines', repeated('\n')],
  ['blank lines with spaces', repeated(' \n')],
  ['blank lines with tabs and carriage returns', repeated('\t\r\n')],
  ['line separators', repeated('\u2028')],
  ['list markers without items', repeated('1. \n')],
  ['bullets without items', repeated('- \n')],
  ['list markers followed by blank lines', repeated('1.' + ' \n'.repeat(16))],
  ['fences', repeated('```\n')],
  ['separator lines', repeated('---\n')],
  ['one long dash run', repeated('-')],
  ['quoted lines', repeated('> a\n')],
  ['inline code never closed', (length) => '`' + repeatTo('a', length - 1)],
  ['backticks and letters', repeated('`a')],
  ['semicolons before long blank runs', repeated(';' + ' \n'.repeat(16))],
  ['braces before long blank runs', repeated('{' + ' '.repeat(32))],
  ['tag openings never closed', repeated('<a')],
  ['operators between digits', repeated('1 + ')],
  ['question marks', repeated('?')],
  ['apostrophes inside words', repeated("a'")],
  ['nested brackets', nested('[{(', ')}]')],
  ['nested parentheses', nested('(', ')')],
  ['multi-word keyword openings', repeated('step by if and only how do you ')],
  ['spaced letters', repeated('a b ')],
  ['Latin and Cyrillic words', repeated('a ж ')],
];

function scoring(text: string): () => unknown {
  const messages = [{ role: 'user', content: text }];
  return () => scoreComplexity({ userText: routingText(messages, (m) => m.content), messageCount: 1, usesTools: false });
}

describe('the router score grows linearly with the text', () => {
  it.each(SHAPES)('%s: 128 K to 256 K units at most roughly doubles the time', (_, build) => {
    const doubling = doublingRatio((length) => scoring(build(length)), 128_000);
    if (doubling.ratio >= MAX_DOUBLING_RATIO) throw new Error(describeDoubling(doubling));
  });

  it.each(SHAPES.filter(([name]) => ['script switching ending in a Cyrillic sign', 'blank lines', 'nested brackets', 'one long Han run'].includes(name)))(
    '%s: 512 K units to 1 M at most roughly doubles the time',
    (_, build) => {
      const doubling = doublingRatio((length) => scoring(build(length)), 512_000, { runs: 3 });
      if (doubling.ratio >= MAX_DOUBLING_RATIO) throw new Error(describeDoubling(doubling));
    },
  );

  it('holds for shapes built from random pieces of the above', () => {
    const piece = fc.constantFrom(
      'a',
      'A',
      'ж',
      '\u0482',
      '中',
      '证',
      '1',
      ' ',
      '\n',
      '\t',
      '\r',
      '\u3000',
      '.',
      ')',
      '-',
      '*',
      '•',
      '`',
      '>',
      ';',
      '{',
      '}',
      '<',
      '/',
      '=',
      '+',
      '?',
      "'",
      '[',
      '(',
      'step ',
      'by ',
      'prove ',
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
        const doubling = doublingRatio((length) => scoring(repeatTo(pieces.join(''), length)), 64_000, { runs: 3 });
        return doubling.ratio < MAX_DOUBLING_RATIO;
      }),
      { numRuns: 25 },
    );
  });
});
