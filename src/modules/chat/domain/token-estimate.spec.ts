import fc from 'fast-check';
import { describeDoubling, doublingRatio, MAX_DOUBLING_RATIO, repeatTo } from '../../../../test/support/linear-time';
import { routingSignals } from './chat-plan';
import type { ChatRequest, FunctionTool } from '../../providers/domain/chat-request';
import { codePointLength, estimateInputTokens, jsonCodePointLength } from './token-estimate';

function deepSchema(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

function withTool(parameters: Record<string, unknown>): ChatRequest {
  const tool: FunctionTool = { type: 'function', function: { name: 'lookup', parameters } };
  return { model: 'auto', messages: [{ role: 'user', content: 'hi' }], tools: [tool] };
}

describe('jsonCodePointLength', () => {
  it('is the code-point length of JSON.stringify for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => jsonCodePointLength(value) === codePointLength(JSON.stringify(value))),
      { numRuns: 500 },
    );
  });

  it('writes what JSON cannot hold as JSON.stringify does: skipped in objects, null in arrays', () => {
    const value = { a: undefined, b: [undefined, () => 1, Symbol('s'), NaN, -0, 1e21], c: { d: () => 1 } };
    expect(jsonCodePointLength(value)).toBe(JSON.stringify(value).length);
  });

  it('counts a tool schema nested 100,000 deep, which JSON.stringify cannot serialise', () => {
    const schema = deepSchema(100_000);
    expect(() => JSON.stringify(schema)).toThrow(RangeError);
    expect(estimateInputTokens(withTool(schema))).toBeGreaterThan(100_000);
  });

  it("counts a tool call's id and name and the id a tool message answers, which are forwarded as sent", () => {
    const loop = (name: string, id: string): ChatRequest => ({
      model: 'auto',
      messages: [
        { role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }] },
        { role: 'tool', tool_call_id: id, content: 'ok' },
      ],
    });
    expect(estimateInputTokens(loop('f', 'c'))).toBe(Math.ceil((1 + 1 + 2 + 1 + 2) / 4));
    expect(estimateInputTokens(loop('f'.repeat(4000), 'c'))).toBe(Math.ceil((1 + 4000 + 2 + 1 + 2) / 4));
    expect(estimateInputTokens(loop('f', 'c'.repeat(4000)))).toBe(Math.ceil((4000 + 1 + 2 + 4000 + 2) / 4));
  });

  it('leaves the estimate of an ordinary tool as it was', () => {
    const request = withTool({ type: 'object', properties: { city: { type: 'string', description: 'Zürich, 東京 or 🏙' } }, required: ['city'] });
    expect(estimateInputTokens(request)).toBe(Math.ceil((2 + codePointLength(JSON.stringify(request.tools))) / 4));
  });
});

/**
 * The estimate and the router's signals read unpaid requests before any payment, so their cost
 * must grow linearly with the request (docs/decisions.md, "Linear time outside the guard").
 */
describe('the estimate and the routing signals grow linearly with the request', () => {
  type Shape = readonly [string, (size: number) => ChatRequest];
  const text =
    (unit: string) =>
    (size: number): ChatRequest => ({ model: 'auto', messages: [{ role: 'user', content: repeatTo(unit, size) }] });
  const SHAPES: readonly Shape[] = [
    ['script switching ending in a Cyrillic sign', text('a' + 'ж\u0482'.repeat(64))],
    ['surrogate pairs', text('😀')],
    ['lone surrogates', text('\ud800a')],
    ['blank lines', text('\n')],
    ['nested brackets', (size) => ({ model: 'auto', messages: [{ role: 'user', content: '['.repeat(size / 2) + ']'.repeat(size / 2) }] })],
    ['one-character text parts', (size) => ({ model: 'auto', messages: [{ role: 'user', content: Array.from({ length: size / 8 }, () => ({ type: 'text' as const, text: 'aж\u0482' })) }] })],
    ['a tool schema nested deep', (size) => withTool(deepSchema(size / 40))],
    ['a tool schema with many properties', (size) => withTool({ type: 'object', properties: Object.fromEntries(Array.from({ length: size / 24 }, (_, i) => [`p${i}`, { type: 'string' }])) })],
    ['tool strings full of escapes', (size) => withTool({ description: repeatTo('"\\\n\u0001', size) })],
    [
      'tool-call arguments',
      (size) => ({ model: 'auto', messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: repeatTo('{"a":[', size) } }] }] }),
    ],
  ];

  it.each(SHAPES)('%s: 512 K to 1 M units at most roughly doubles the time', (_, build) => {
    const doubling = doublingRatio((size) => {
      const request = build(size);
      return () => routingSignals(request);
    }, 512_000);
    if (doubling.ratio >= MAX_DOUBLING_RATIO) throw new Error(describeDoubling(doubling));
  });
});
