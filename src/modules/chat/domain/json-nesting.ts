/**
 * The deepest a chat body may nest objects and arrays, the body itself being level 1
 * (docs/decisions.md, "Nesting depth"). Room for a tool or response schema about thirty levels
 * deep (each level of a JSON Schema is two: `properties` and the property), and far below what
 * recursive code over the body (serialisation, the cache key, the adapters' translations) can take.
 */
export const MAX_NESTING_DEPTH = 64;

/** How many leading path segments a depth error names: enough to say which field, never a client's whole structure. */
const NAMED_SEGMENTS = 4;
const NAMED_KEY_LENGTH = 40;

interface Frame {
  value: object;
  depth: number;
  key: string | number | null;
  parent: Frame | null;
}

/**
 * Where `value` first nests deeper than `maxDepth` (its path, as `tools[0].function.parameters`,
 * cut to its first few segments), or null when it does not. Iterative, each object and array
 * visited once: a body nested millions deep is measured without recursion.
 */
export function nestingBeyond(value: unknown, maxDepth: number): string | null {
  if (!isContainer(value)) return null;
  const stack: Frame[] = [{ value, depth: 1, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    if (frame.depth > maxDepth) return pathOf(frame);
    const push = (child: unknown, key: string | number): void => {
      if (isContainer(child)) stack.push({ value: child, depth: frame.depth + 1, key, parent: frame });
    };
    if (Array.isArray(frame.value)) frame.value.forEach(push);
    else for (const [key, child] of Object.entries(frame.value)) push(child, key);
  }
  return null;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function pathOf(frame: Frame): string {
  const keys: Array<string | number> = [];
  for (let at: Frame | null = frame; at !== null && at.key !== null; at = at.parent) keys.push(at.key);
  keys.reverse();
  const named = keys.slice(0, NAMED_SEGMENTS).map((key, i) => {
    if (typeof key === 'number') return `[${key}]`;
    const shown = key.length > NAMED_KEY_LENGTH ? `${key.slice(0, NAMED_KEY_LENGTH)}...` : key;
    return i === 0 ? shown : `.${shown}`;
  });
  return named.join('') + (keys.length > NAMED_SEGMENTS ? '...' : '');
}
