import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_CODES } from '../../../src/errors/error-codes';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { conformanceProblems, validatorFor, type Exchange } from '../../support/openapi-conformance';

const repo = join(__dirname, '..', '..', '..');

type Operation = {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown>; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, unknown>; example?: unknown }> }>;
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
};

/** @seriousme/openapi-schema-validator is ESM only; it runs in a child Node on the document. */
function validateDocument(document: object): { valid: boolean; errors?: unknown } {
  const script = `import { Validator } from '@seriousme/openapi-schema-validator';
let text = '';
process.stdin.on('data', (chunk) => (text += chunk)).on('end', async () => console.log(JSON.stringify(await new Validator().validate(JSON.parse(text)))));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repo, input: JSON.stringify(document), encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) throw new Error(`the validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { valid: boolean; errors?: unknown };
}

/** Every route Nest registered, read from the controllers' own metadata (not from @nestjs/swagger), as `METHOD /path/{param}`. */
function registeredRoutes(gateway: RunningGateway): string[] {
  const routes: string[] = [];
  for (const module of gateway.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!controller) continue;
      const prefixes = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[]].flat();
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        for (const prefix of prefixes)
          for (const path of [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat()) {
            const joined = `/${[prefix, path].filter((part) => part && part !== '/').join('/')}`.replace(/\/+/g, '/').replace(/:([A-Za-z_]+)/g, '{$1}');
            routes.push(`${method} ${joined}`);
          }
      }
    }
  }
  return routes.sort();
}

const operations = (document: OpenAPIObject): Array<[string, Operation]> =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation]),
  );

describe('GET /openapi.json: the API description, generated from the code (spec 4.10, 9)', () => {
  let gateway: RunningGateway;
  let document: OpenAPIObject;
  beforeAll(async () => {
    gateway = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    const res = await fetch(`${gateway.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    document = (await res.json()) as OpenAPIObject;
  });
  afterAll(() => gateway.close());

  it('is an OpenAPI 3.1.0 document of API version 0.1.0 that a validator accepts', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('0.1.0');
    expect(validateDocument(document)).toEqual({ valid: true });
  });

  it('describes every route the app registered, and nothing else', () => {
    const documented = operations(document).map(([route]) => route);
    expect(documented.sort()).toEqual(registeredRoutes(gateway));
    expect(documented).toEqual(
      expect.arrayContaining(['POST /v1/chat/completions', 'GET /v1/receipts/{id}', 'POST /a2a', 'GET /.well-known/x402', 'GET /openapi.json', 'GET /metrics', 'PUT /v1/wallets/{wallet}/budget']),
    );
  });

  it('names its security schemes (admin token, org API keys, x402) and which routes take which', () => {
    expect(Object.keys(document.components?.securitySchemes ?? {}).sort()).toEqual(['admin', 'orgApiKey', 'x402']);
    const security = Object.fromEntries(operations(document).map(([route, operation]) => [route, operation.security ?? []]));
    expect(security['GET /metrics']).toEqual([{ admin: [] }]);
    expect(security['POST /v1/orgs']).toEqual([{ admin: [] }]);
    expect(security['GET /v1/orgs/{org_id}/members']).toEqual([{ admin: [] }, { orgApiKey: [] }]);
    expect(security['POST /v1/search']).toEqual([{ x402: [] }]);
    // A free model needs nothing; a paid one the payment.
    expect(security['POST /v1/chat/completions']).toEqual([{}, { x402: [] }]);
    expect(security['GET /v1/models']).toEqual([]);
  });

  it('documents the 402 of every paid route: the challenge (PAYMENT-REQUIRED header and body) or the envelope of a refused payment', () => {
    for (const route of ['POST /v1/chat/completions', 'POST /v1/search', 'POST /v1/solana/price', 'POST /v1/services/{id}/proxy']) {
      const challenge = Object.fromEntries(operations(document))[route].responses['402'];
      expect(challenge.headers).toHaveProperty('PAYMENT-REQUIRED');
      expect(challenge.content?.['application/json'].schema).toEqual({ oneOf: [{ $ref: '#/components/schemas/PaymentRequired' }, { $ref: '#/components/schemas/Error' }] });
    }
    expect(document.components?.schemas?.PaymentRequired).toMatchObject({ required: ['x402_version', 'resource', 'accepts', 'cost_breakdown', 'error'] });
  });

  it('answers every error with the envelope whose error.code is one of the catalogue, per status', () => {
    const envelope = document.components?.schemas?.Error as { properties: { error: { properties: { code: { enum: string[] } } } } };
    expect(envelope.properties.error.properties.code.enum).toEqual(Object.keys(ERROR_CODES).sort());
    for (const [route, operation] of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^[45]\d\d$/.test(status) || status === '402') continue;
        const schema = JSON.stringify(response.content?.['application/json'].schema);
        expect({ route, status, schema }).toEqual({ route, status, schema: expect.stringContaining('#/components/schemas/Error') });
      }
    }
    const search = Object.fromEntries(operations(document))['POST /v1/search'];
    expect(search.responses['502'].content?.['application/json'].schema).toEqual({ oneOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/StaticProviderError' }] });
  });

  it('takes its request schemas from what the gateway validates with, and its examples fit them', () => {
    const fits = (schema: object, value: unknown): boolean => validatorFor(document, schema)(value) as boolean;
    const byRoute = Object.fromEntries(operations(document));
    const chat = byRoute['POST /v1/chat/completions'].requestBody?.content['application/json'];
    expect(chat?.schema).toMatchObject({ title: 'ChatCompletionRequest', required: ['model', 'messages'] });
    expect(fits(chat?.schema as object, chat?.examples?.chat.value)).toBe(true);
    expect(fits(chat?.schema as object, { model: 'auto', messages: [] })).toBe(false);
    for (const route of ['POST /v1/search', 'POST /v1/solana/price']) {
      const body = byRoute[route].requestBody?.content['application/json'];
      const [example] = Object.values(body?.examples ?? {});
      expect(fits(body?.schema as object, example.value)).toBe(true);
      const answer = byRoute[route].responses['200'].content?.['application/json'];
      expect(fits(answer?.schema as object, answer?.example)).toBe(true);
    }
    // DTO bodies come from their class-validator rules, and refuse unknown fields as the DTOs do.
    expect(document.components?.schemas?.AddMemberDto).toMatchObject({
      required: ['wallet_address', 'role'],
      additionalProperties: false,
      properties: { role: { enum: ['member', 'admin', 'owner'] } },
    });
    expect(
      fits(
        { $ref: '#/components/schemas/ServiceRegistrationDto' },
        { id: 'x', name: 'X', category: 'data', endpoint: 'https://x.example', x402_enabled: false, price_per_request_usdc: '0.01', chains: ['solana'] },
      ),
    ).toBe(true);
  });

  it("says what OpenAI's clients rely on: null as unset in the chat body, refusal and logprobs in every answer, param in every error, a model's own route", () => {
    const fits = (schema: object, value: unknown): boolean => validatorFor(document, schema)(value) as boolean;
    const chat = Object.fromEntries(operations(document))['POST /v1/chat/completions'];
    const body = chat.requestBody?.content['application/json'].schema as object;
    const tool = { type: 'function', function: { name: 'f', description: null, parameters: null, strict: null } };
    expect(fits(body, { model: 'auto', messages: [{ role: 'user', content: 'hi', name: null, tool_calls: null, tool_call_id: null }], tools: [tool], temperature: null, stop: null, n: null })).toBe(
      true,
    );
    const answer = chat.responses['200'].content?.['application/json'].schema as object;
    const choice = { index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, logprobs: null, finish_reason: 'stop' };
    const completion = (over: object) => ({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ ...choice, ...over }] });
    expect(fits(answer, completion({}))).toBe(true);
    expect(fits(answer, completion({ logprobs: undefined }))).toBe(false);
    expect(fits(answer, completion({ message: { role: 'assistant', content: 'hi' } }))).toBe(false);
    expect(document.components?.schemas?.Error).toMatchObject({ properties: { error: { required: ['type', 'message', 'code', 'param'] } } });
    for (const route of ['GET /v1/models/{model}', 'GET /v1/models/{provider}/{model}']) {
      expect(Object.keys(Object.fromEntries(operations(document))[route].responses)).toEqual(expect.arrayContaining(['200', '404']));
    }
  });

  it('the conformance check that every e2e suite runs on its responses catches drift', () => {
    const exchange = (over: Partial<Exchange>): Exchange => ({
      method: 'GET',
      path: '/v1/models',
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: Buffer.from(JSON.stringify({ object: 'list', data: [] })),
      truncated: false,
      ...over,
    });
    expect(conformanceProblems(document, exchange({}))).toEqual([]);
    expect(conformanceProblems(document, exchange({ body: Buffer.from('{"object":"list"}') }))).toEqual([expect.stringContaining('body off its schema')]);
    expect(conformanceProblems(document, exchange({ status: 418 }))).toEqual([expect.stringContaining('status not documented')]);
    expect(conformanceProblems(document, exchange({ headers: { 'content-type': 'text/html' } }))).toEqual([expect.stringContaining('content type text/html not documented')]);
    expect(conformanceProblems(document, exchange({ path: '/v1/undocumented' }))).toEqual([expect.stringContaining('not in the document')]);
    // What matches no route is the edge's error, in the envelope.
    const unknown = { error: { type: 'not_found', message: 'route not found: GET /v1/undocumented', code: 'route.not_found', param: null } };
    expect(conformanceProblems(document, exchange({ path: '/v1/undocumented', status: 404, body: Buffer.from(JSON.stringify(unknown)) }))).toEqual([]);
    expect(conformanceProblems(document, exchange({ path: '/v1/undocumented', status: 404, body: Buffer.from('{"oops":1}') }))).toEqual([expect.stringContaining('body off its schema')]);
    const error = { error: { type: 'not_found', message: 'receipt not found', code: 'receipt.not_found', param: null } };
    expect(conformanceProblems(document, exchange({ path: '/v1/receipts/abc', status: 404, body: Buffer.from(JSON.stringify(error)) }))).toEqual([]);
    expect(conformanceProblems(document, exchange({ path: '/v1/receipts/abc', status: 404, body: Buffer.from(JSON.stringify({ error: { ...error.error, code: 'no.such_code' } })) }))).toEqual([
      expect.stringContaining('body off its schema'),
    ]);
  });
});
