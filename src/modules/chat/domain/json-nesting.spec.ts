import { MAX_NESTING_DEPTH, nestingBeyond } from './json-nesting';

function nestedArrays(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('nestingBeyond', () => {
  it('counts the outermost object or array as level 1, and scalars not at all', () => {
    expect(nestingBeyond('text', 0)).toBeNull();
    expect(nestingBeyond({ a: 'x', b: 1, c: null }, 1)).toBeNull();
    expect(nestingBeyond({ a: {} }, 1)).toBe('a');
    expect(nestingBeyond(nestedArrays(MAX_NESTING_DEPTH), MAX_NESTING_DEPTH)).toBeNull();
    expect(nestingBeyond(nestedArrays(MAX_NESTING_DEPTH + 1), MAX_NESTING_DEPTH)).not.toBeNull();
  });

  it('names where the nesting goes too deep by its first segments only', () => {
    let parameters: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) parameters = { properties: { field: parameters } };
    const body = { model: 'auto', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters } }] };
    expect(nestingBeyond(body, MAX_NESTING_DEPTH)).toBe('tools[0].function.parameters...');
    expect(nestingBeyond({ ['k'.repeat(500)]: [[[]]] }, 2)).toBe(`${'k'.repeat(40)}...[0]`);
  });

  it('finds the one deep branch among wide shallow ones', () => {
    const body = { wide: Array.from({ length: 10_000 }, (_, i) => ({ i })), messages: [{ content: [{ type: 'text', extra: nestedArrays(70) }] }] };
    expect(nestingBeyond(body, MAX_NESTING_DEPTH)).toBe('messages[0].content[0]...');
  });

  it('measures a body nested a million deep without recursion', () => {
    expect(nestingBeyond(nestedArrays(1_000_000), MAX_NESTING_DEPTH)).toBe('[0][0][0][0]...');
  });
});
