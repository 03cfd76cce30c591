import { doublingRatio, MAX_DOUBLING_RATIO } from '../../test/support/linear-time';
import { parseChatRequest } from '../modules/chat/http/chat-request-validator';
import { JsonBodyScanner, type ScanRefusal } from './json-body-scanner';

const CHUNK_SIZES = [1, 2, 3, 7, 4096];

/** Feeds `text` in chunks of `size` bytes; the first refusal, or null. */
function scan(text: string, size = 7, maxValues = Infinity, maxDepth = 64): ScanRefusal | null {
  const bytes = Buffer.from(text, 'utf8');
  const scanner = new JsonBodyScanner(maxValues, maxDepth);
  for (let at = 0; at < bytes.length; at += size) {
    const verdict = scanner.feed(bytes.subarray(at, at + size));
    if (verdict !== null) return verdict;
  }
  return null;
}

/** The path the scanner names, or null. */
const tooDeep = (text: string, size = 7, maxDepth = 64): string | null => {
  const verdict = scan(text, size, Infinity, maxDepth);
  return verdict?.bound === 'nesting' ? verdict.path : null;
};

/** The JSON values of a parsed body: itself and every value it holds, keys not counted. */
function valuesOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 1;
  return 1 + (Array.isArray(value) ? value : Object.values(value)).reduce<number>((sum, item) => sum + valuesOf(item), 0);
}

describe('JsonBodyScanner', () => {
  describe('nesting', () => {
    it('passes bodies at the bound and names the path of the first container past it, however the body is cut', () => {
      const atBound = '['.repeat(64) + ']'.repeat(64);
      for (const size of CHUNK_SIZES) expect(scan(atBound, size)).toBeNull();
      const shapes: Array<[string, string]> = [
        [`{"tools":[{"function":{"parameters":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}}]}`, 'tools[0].function.parameters...'],
        [`{"response_format":{"json_schema":${'['.repeat(70)}${']'.repeat(70)}}}`, 'response_format.json_schema[0][0]...'],
        [`{"messages":[{"content":[{"extra":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}]}]}`, 'messages[0].content[0]...'],
        [`{"k\\u00e9y \\"quoted\\" ${'x'.repeat(60)}":${'['.repeat(70)}${']'.repeat(70)}}`, `kéy "quoted" ${'x'.repeat(27)}...[0][0][0]...`],
        [`[1,[2,{"b":3,"c":${'{"é":'.repeat(70)}1${'}'.repeat(70)}}]]`, '[1][1].c.é...'],
      ];
      for (const [text, path] of shapes) {
        for (const size of CHUNK_SIZES) expect(tooDeep(text, size)).toBe(path);
      }
    });

    it('skips brackets inside strings and escaped quotes', () => {
      expect(tooDeep(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`, 5, 2)).toBeNull();
      expect(tooDeep('{"a":[[1]]}', 5, 2)).toBe('a[0]');
    });

    it('is the only nesting bound a chat body meets: a tool schema at 64 levels is accepted, at 65 refused before it is parsed', () => {
      // The body, tools, [0], function and parameters are 5 levels; `wrap` 6; each schema level adds 2 (properties, the property).
      const schema = (depth: number): string => '{"type":"object","properties":{"a":'.repeat(depth) + '{"type":"string"}' + '}}'.repeat(depth);
      const body = (parameters: string): string => `{"model":"auto","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${parameters}}}]}`;
      const atBound = body(`{"wrap":${schema(29)}}`);
      expect(scan(atBound)).toBeNull();
      expect(parseChatRequest(JSON.parse(atBound)).tools?.[0].function.parameters).toEqual(JSON.parse(`{"wrap":${schema(29)}}`));
      expect(scan(body(`{"wrap":{"more":${schema(29)}}}`))).toEqual({ bound: 'nesting', path: 'tools[0].function.parameters...' });
    });
  });

  describe('values', () => {
    it('counts every object, array, string, number, true, false and null, keys not, exactly as the parsed body holds them, however the body is cut', () => {
      const bodies = [
        '{"a":[1,"x"]}',
        '{}',
        '[[],{},[{}],[[[]]]]',
        '{"model":"x","messages":[{"role":"user","content":"hi"}],"stop":[0,0,0,0],"temperature":-1.5e+10,"stream":true,"n":null,"logprobs":false}',
        // Brackets, braces, commas, colons and quotes inside strings and keys are text, not structure.
        '{"[":"]","{,}":"a,b:c","q\\"[":["\\"{\\"", "\\\\", "\\\\\\"],[", "\\u005b\\u007b,"]}',
        // White space of every kind between values and inside no token.
        ' \t\r\n[ 1 ,\t2\r\n,\n3 , "x" , { "k" : [ true , false , null ] } ]\n',
        // Numbers and literals of many bytes, each one value.
        '[123456789,-0.000001,1E-7,true,false,null,"é中ж😀"]',
      ];
      for (const body of bodies) {
        const count = valuesOf(JSON.parse(body));
        for (const size of CHUNK_SIZES) {
          expect(scan(body, size, count)).toBeNull();
          expect(scan(body, size, count - 1)).toEqual({ bound: 'values' });
        }
      }
      expect(valuesOf(JSON.parse(bodies[0]))).toBe(4);
    });

    it('refuses at the first value past the bound, on the chunk that holds it, whatever the values are', () => {
      const first = (text: string, maxValues: number): number => {
        const scanner = new JsonBodyScanner(maxValues);
        const bytes = Buffer.from(text);
        for (let at = 0; at < bytes.length; at++) if (scanner.feed(bytes.subarray(at, at + 1)) !== null) return at;
        return -1;
      };
      expect(first('[0,0,0,0,0]', 3)).toBe(5);
      expect(first('[{},{},{},{}]', 3)).toBe(7);
      expect(first('{"a":"x","b":"y","c":"z"}', 3)).toBe(21);
      expect(first('{"stop":[true,false,null]}', 3)).toBe(14);
    });

    it('lets one long string through as one value', () => {
      const body = `{"model":"x","messages":[{"role":"user","content":"${'a,[{'.repeat(250_000)}"}]}`;
      expect(scan(body, 65_536, 6)).toBeNull();
    });
  });

  it('runs in linear time on the shapes an attacker would send', () => {
    const shapes: Array<(size: number) => string> = [
      (size) => '['.repeat(60) + '0,'.repeat(size / 2) + ']'.repeat(60),
      (size) => `{"a":"${'\\"['.repeat(size / 3)}"}`,
      (size) => '{"k":1,'.repeat(size / 7) + '"z":0}',
      (size) => `[${'{},'.repeat(size / 3)}{}]`,
      // Strings are skipped by looking for their next quote and backslash: neither search may start over at each escape or each string.
      (size) => `["${'\\\\'.repeat(size / 2)}"]`,
      (size) => `[${'"a",'.repeat(size / 4)}"\\n"]`,
    ];
    for (const shape of shapes) {
      const { ratio } = doublingRatio((size) => {
        const bytes = Buffer.from(shape(size));
        return () => new JsonBodyScanner(Infinity).feed(bytes);
      }, 1 << 20);
      expect(ratio).toBeLessThan(MAX_DOUBLING_RATIO);
    }
  });
});
