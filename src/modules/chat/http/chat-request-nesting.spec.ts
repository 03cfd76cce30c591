import { GatewayError } from '../../../errors/gateway-error';
import { parseChatRequest } from './chat-request-validator';

/** A JSON Schema `depth` levels of `properties` deep (two levels of nesting each). */
function deepSchema(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

const MESSAGES = [{ role: 'user', content: 'hi' }];

function refusal(body: unknown): { type: string; message: string } {
  try {
    parseChatRequest(body);
  } catch (err) {
    if (err instanceof GatewayError) return { type: err.type, message: err.message };
    throw err;
  }
  throw new Error('accepted');
}

describe('the chat request nesting bound (docs/decisions.md, "Nesting depth")', () => {
  it('refuses a tool schema nested 5,000 deep with a 400 naming the field', () => {
    const body = { model: 'auto', messages: MESSAGES, tools: [{ type: 'function', function: { name: 'f', parameters: deepSchema(5_000) } }] };
    expect(refusal(body)).toEqual({ type: 'bad_request', message: 'tools[0].function.parameters... is nested too deeply: objects and arrays may nest at most 64 levels' });
  });

  it('refuses deep nesting in response_format and in message content parts too', () => {
    const format = { type: 'json_schema', json_schema: { name: 'x', schema: deepSchema(5_000) } };
    expect(refusal({ model: 'auto', messages: MESSAGES, response_format: format })).toEqual({
      type: 'bad_request',
      message: 'response_format.json_schema.schema.properties... is nested too deeply: objects and arrays may nest at most 64 levels',
    });
    let extra: unknown = 'x';
    for (let i = 0; i < 5_000; i++) extra = [extra];
    expect(refusal({ model: 'auto', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', extra }] }] }).message).toBe(
      'messages[0].content[0]... is nested too deeply: objects and arrays may nest at most 64 levels',
    );
  });

  it('accepts a body nested exactly 64 levels, and refuses 65', () => {
    // The body, tools, [0], function and parameters are 5 levels; `wrap` 6; each schema level adds 2 (properties, the property).
    const withParameters = (parameters: unknown) => ({ model: 'auto', messages: MESSAGES, tools: [{ type: 'function', function: { name: 'f', parameters } }] });
    expect(parseChatRequest(withParameters({ wrap: deepSchema(29) })).tools?.[0].function.parameters).toEqual({ wrap: deepSchema(29) });
    expect(refusal(withParameters({ wrap: { more: deepSchema(29) } })).type).toBe('bad_request');
  });
});
