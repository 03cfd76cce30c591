import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { RunningGateway } from '../../src/gateway';
import { OpenApiDocument } from '../../src/http/openapi/openapi-document';
import { openAiObjectsIn, openAiProblems } from './openai-schemas';

/** One request and the response the gateway wrote for it. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
  /** Whether the body was cut (too large to keep whole), so not checked. */
  truncated: boolean;
}

type Response = { headers?: Record<string, { required?: boolean }>; content?: Record<string, { schema?: object }> };
type Operation = { responses: Record<string, Response> };

const EDGE_ERROR: Response = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
const KEPT_BODY_BYTES = 1 << 20;
const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH']);

/**
 * The document of `gateway`'s app. Apps with the same controllers have the same document (it is
 * built from their code alone), so it is built, and its validators compiled, once per set.
 */
const documents = new Map<string, OpenAPIObject>();
function documentOf(gateway: RunningGateway): OpenAPIObject {
  const controllers = [...gateway.app.get(ModulesContainer).values()].flatMap((module) => [...module.controllers.values()].map((wrapper) => wrapper.name));
  const key = controllers.sort().join(',');
  let document = documents.get(key);
  if (!document) {
    document = gateway.app.get(OpenApiDocument).document;
    documents.set(key, document);
  }
  return document;
}

/** Checks every response `gateway` writes as it finishes, adding what the document does not describe to `problems`. */
export function checkExchanges(gateway: RunningGateway, problems: Set<string>): void {
  const server = gateway.app.getHttpServer() as Server;
  // Looked up at the first response: an app whose responses are never checked never builds one.
  let document: OpenAPIObject | undefined;
  // Prepended, so that the response is wrapped before Express writes a byte of it.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    const keep = (chunk: unknown, encoding?: unknown): void => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      // Only a JSON body or an event stream is checked against a schema; of any other, its presence is enough.
      const type = String(res.getHeader('content-type') ?? '');
      if (!type.startsWith('application/json') && !type.startsWith('text/event-stream')) chunks.splice(0, chunks.length, buffer.subarray(0, 1));
      else if (kept + buffer.length > KEPT_BODY_BYTES) truncated = true;
      else chunks.push(buffer);
      kept += buffer.length;
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((...args: unknown[]) => (keep(args[0], args[1]), write(...args))) as ServerResponse['write'];
    res.end = ((...args: unknown[]) => (keep(args[0], args[1]), end(...args))) as ServerResponse['end'];
    res.once('finish', () => {
      const exchange = { method: req.method ?? '', path: (req.url ?? '').split('?')[0], status: res.statusCode, headers: res.getHeaders(), body: Buffer.concat(chunks), truncated };
      try {
        document ??= documentOf(gateway);
        for (const problem of conformanceProblems(document, exchange)) problems.add(problem);
        for (const problem of openAiAnswerProblems(exchange)) problems.add(problem);
      } catch (err) {
        problems.add(`${exchange.method} ${exchange.path}: the check failed: ${String(err)}`);
      }
    });
  });
}

const validators = new WeakMap<object, { ajv: Ajv2020; compiled: Map<object, ValidateFunction> }>();

/** A validator of `schema`, whose `$ref`s point into `document`'s components; compiled once per schema object. */
export function validatorFor(document: OpenAPIObject, schema: object): ValidateFunction {
  let entry = validators.get(document);
  if (!entry) {
    // OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` and other OpenAPI keywords are annotations.
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
    ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
    entry = { ajv, compiled: new Map() };
    validators.set(document, entry);
  }
  let validate = entry.compiled.get(schema);
  if (!validate) {
    validate = entry.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')) as object);
    entry.compiled.set(schema, validate);
  }
  return validate;
}

const templatePatterns = new WeakMap<object, Array<[string, RegExp]>>();

/** The documented path template `path` falls under; a literal segment wins over a parameter. */
function templateOf(document: OpenAPIObject, path: string): string | undefined {
  let patterns = templatePatterns.get(document);
  if (!patterns) {
    // Fewest parameters first, so that the first match is the most literal one.
    const templates = Object.keys(document.paths).sort((a, b) => a.split('{').length - b.split('{').length);
    patterns = templates.map((template) => {
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}/]+\}/g, '[^/]+');
      return [template, new RegExp(`^${pattern}/?$`)];
    });
    templatePatterns.set(document, patterns);
  }
  return patterns.find(([, pattern]) => pattern.test(path))?.[0];
}

const header = (headers: OutgoingHttpHeaders | IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return value === undefined ? undefined : String(value);
};

/** What in `exchange` the document does not describe: an undocumented route or status, a missing header, a body off its schema. */
export function conformanceProblems(document: OpenAPIObject, exchange: Exchange): string[] {
  const { method, path, status } = exchange;
  // The harness's own routes (test-routes.module.ts) are not the gateway's API.
  if (!METHODS.has(method) || path.startsWith('/test/')) return [];
  const template = templateOf(document, path);
  const operation = template ? ((document.paths[template] as Record<string, Operation | undefined>)[method.toLowerCase()] ?? undefined) : undefined;
  const bodyText = exchange.body.toString('utf8');
  const where = `${method} ${template ?? path} ${status}`;
  // What matches no route (an unknown path, a malformed one) is the edge's error: the envelope.
  const response = operation ? (operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default) : status >= 400 ? EDGE_ERROR : undefined;
  if (!operation && !response) return [`${where}: the route is not in the document`];
  if (!response) return [`${where}: status not documented (body ${bodyText.slice(0, 300)})`];
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(response.headers ?? {})) {
    if (spec.required && header(exchange.headers, name) === undefined) problems.push(`${where}: required header ${name} missing`);
  }
  if (exchange.body.length === 0) return problems;
  const mediaType = (header(exchange.headers, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  const media = response.content?.[mediaType] ?? response.content?.['*/*'];
  if (!media) return [...problems, `${where}: content type ${mediaType || '(none)'} not documented`];
  if (!media.schema || mediaType !== 'application/json' || exchange.truncated) return problems;
  const validate = validatorFor(document, media.schema);
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return [...problems, `${where}: the body is not JSON`];
  }
  if (!validate(body)) problems.push(`${where}: body off its schema: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${bodyText.slice(0, 400)}`);
  return problems;
}

/** What OpenAI's own schemas refuse in a successful answer the gateway wrote on an OpenAI route: the official clients parse these. */
function openAiAnswerProblems({ method, path, status, headers, body, truncated }: Exchange): string[] {
  if (status !== 200 || truncated || body.length === 0) return [];
  const objects = openAiObjectsIn(path, String(header(headers, 'content-type') ?? ''), body.toString('utf8')).map(([schema, value]) => [schema, withSpecFinishReason(value)] as const);
  return objects.flatMap(([schema, value]) => openAiProblems(schema, value).map((problem) => `${method} ${path} ${status}: off OpenAI's schema: ${problem}`));
}

/**
 * Spec 2.3 lets a JSON answer's `finish_reason` be null (an answer whose provider stopped midway, served as far as it
 * got), where OpenAI's schema wants one of its reasons: that one field is held to the spec, the rest to OpenAI.
 */
function withSpecFinishReason(value: unknown): unknown {
  const { choices } = value as { choices?: unknown };
  if (!Array.isArray(choices) || (value as { object?: unknown }).object !== 'chat.completion') return value;
  return { ...(value as object), choices: choices.map((choice: Record<string, unknown>) => (choice.finish_reason === null ? { ...choice, finish_reason: 'stop' } : choice)) };
}

/** Throws with every problem found, and forgets them. */
export function assertConformance(problems: Set<string>): void {
  const found = [...problems];
  problems.clear();
  if (found.length > 0) throw new Error(`responses the OpenAPI document does not describe:\n${found.slice(0, 40).join('\n')}`);
}
