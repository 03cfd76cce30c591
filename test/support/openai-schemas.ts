import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import fixture from '../fixtures/openai-schemas.json';

/** OpenAI's own schemas for what the gateway answers (test/fixtures/openai-schemas.json, which names its source). */
export type OpenAiSchema = 'CreateChatCompletionResponse' | 'CreateChatCompletionStreamResponse' | 'Model';

/**
 * An OpenAPI 3.0 schema as JSON Schema 2020-12: `nullable: true` becomes "the schema, or null" and
 * `discriminator` (no JSON Schema keyword) is dropped, as the fixture's source asks.
 */
function asJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asJsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, discriminator: _discriminator, ...rest } = node as Record<string, unknown>;
  const schema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, asJsonSchema(value)]));
  return nullable === true ? { anyOf: [schema, { type: 'null' }] } : schema;
}

// OpenAI's `x-` keywords and its `unixtime` format are annotations here.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: 'openai.json', components: asJsonSchema(fixture.components) });
const validators = new Map<OpenAiSchema, ValidateFunction>();

/** What in `value` OpenAI's `schema` refuses; empty when it conforms. */
export function openAiProblems(schema: OpenAiSchema, value: unknown): string[] {
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile({ $ref: `openai.json#/components/schemas/${schema}` })));
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${schema}${error.instancePath} ${error.message ?? 'is invalid'}: ${JSON.stringify(value).slice(0, 300)}`);
}

/**
 * A `fetch` for the `openai` SDK's `fetch` option (the SDK itself unchanged) that holds every
 * successful answer it passes to OpenAI's schemas: a JSON chat completion, each chunk of a chat
 * stream, each model of the list, a model alone. The SDK reads the response as ever; a copy is
 * checked beside it, and `problems()` waits for every check.
 */
export class OpenAiConformance {
  private readonly pending: Array<Promise<void>> = [];
  private readonly found: string[] = [];
  /** How many objects were held to each schema: proof that the checks ran. */
  readonly checked: Record<OpenAiSchema, number> = { CreateChatCompletionResponse: 0, CreateChatCompletionStreamResponse: 0, Model: 0 };

  fetch(base: typeof fetch = fetch): typeof fetch {
    return async (input, init) => {
      const res = await base(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (res.status === 200) this.pending.push(this.check(new URL(url).pathname, res.clone()));
      return res;
    };
  }

  /** Every problem found so far, once every check has finished; forgets them. */
  async problems(): Promise<string[]> {
    await Promise.all(this.pending.splice(0));
    return this.found.splice(0);
  }

  private async check(path: string, res: Response): Promise<void> {
    for (const [schema, value] of openAiObjectsIn(path, res.headers.get('content-type') ?? '', await res.text())) {
      this.checked[schema] += 1;
      this.found.push(...openAiProblems(schema, value));
    }
  }
}

/**
 * The objects of a successful answer on `path` that OpenAI's schemas describe: a JSON chat
 * completion, each chunk of a chat stream (not its error event, which OpenAI's stream has no schema
 * for), each model of the list, a model alone.
 */
export function openAiObjectsIn(path: string, contentType: string, text: string): Array<[OpenAiSchema, unknown]> {
  if (path.endsWith('/chat/completions')) {
    if (!contentType.startsWith('text/event-stream')) return [['CreateChatCompletionResponse', JSON.parse(text)]];
    const chunks = text
      .split('\n\n')
      .filter((block) => block.startsWith('data: ') && block !== 'data: [DONE]')
      .map((block) => JSON.parse(block.slice('data: '.length)) as Record<string, unknown>);
    return chunks.filter((chunk) => !('error' in chunk)).map((chunk) => ['CreateChatCompletionStreamResponse', chunk]);
  }
  if (path.endsWith('/models')) return (JSON.parse(text) as { data: unknown[] }).data.map((model) => ['Model', model]);
  if (path.includes('/models/')) return [['Model', JSON.parse(text)]];
  return [];
}
