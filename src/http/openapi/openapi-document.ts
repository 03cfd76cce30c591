import { Injectable, type INestApplication, type Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject, ResponseObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { ERROR_CODES, type ErrorCode } from '../../errors/error-codes';
import { isOpsPath } from '../ops-paths';
import { declaredErrors } from './api-errors';
import { codesByStatus, ref, WIRE_SCHEMAS } from './wire-schemas';

/** What any route may answer before or around its handler (the edge middleware and filters). */
const EDGE_ERRORS: readonly ErrorCode[] = [
  'request.unsupported_expectation',
  'request.headers_too_large',
  'request.timeout',
  // A body sent to a route that takes none (docs/decisions.md, "Bodies at the edge").
  'request.body_too_large',
  'cors.origin_not_allowed',
  'server.internal_error',
  'server.shutting_down',
];
/** The concurrency cap and the global rate limit, which operator routes are exempt from (spec 8). */
const LIMITED_ERRORS: readonly ErrorCode[] = ['rate_limit.exceeded', 'server.overloaded'];
/** What reading a JSON body may answer (docs/decisions.md, "Request bodies"). */
const BODY_ERRORS: readonly ErrorCode[] = [
  'request.unsupported_content_type',
  'request.unsupported_charset',
  'request.unsupported_encoding',
  'request.body_too_large',
  'request.malformed_json',
  'request.body_aborted',
  'request.receive_timeout',
  'request.nesting_too_deep',
  'request.too_many_values',
  'request.invalid_body',
];
/** The API description's version (spec 9), independent of the package's. */
export const API_VERSION = '0.1.0';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * GET /openapi.json (spec 4.10, 9): the OpenAPI 3.1.0 document, generated from the running app.
 * @nestjs/swagger walks the controllers and their decorators (routes, parameters, success and 402
 * responses, security); class-validator-jsonschema turns the DTOs' validation rules into their body
 * schemas; the error responses come from the codes each route declares (`ApiErrors`) plus the
 * edge's own, by status. Built on first use and kept: routes do not change while the app runs.
 */
@Injectable()
export class OpenApiDocument {
  private app?: INestApplication;
  private built?: OpenAPIObject;

  attach(app: INestApplication): void {
    this.app = app;
  }

  get document(): OpenAPIObject {
    if (!this.app) throw new Error('OpenApiDocument used before the app was attached');
    this.built ??= buildDocument(this.app);
    return this.built;
  }
}

function buildDocument(app: INestApplication): OpenAPIObject {
  const base = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('x402 AI gateway')
    .setDescription(
      'OpenAI-compatible chat and paid tools, paid per request in USDC on Solana with x402: a paid route without PAYMENT-SIGNATURE answers 402 with the quote; sign it and resend. Errors are {"error": {"type", "message", "code", "param"}}.',
    )
    .setVersion(API_VERSION)
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'GW_ADMIN_TOKEN' }, 'admin')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'org API key', description: 'an org API key (POST /v1/orgs/{org_id}/api-keys)' }, 'orgApiKey')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE', description: 'an x402 PaymentPayload, base64 or raw JSON, built from the 402 quote' }, 'x402')
    .build();
  const document = SwaggerModule.createDocument(app, base);
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...dtoSchemas(document), ...(WIRE_SCHEMAS as Record<string, SchemaObject>) } };
  const handlers = handlersByOperationId(app);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const handler = handlers.get(operation.operationId ?? '');
      const declared = handler ? declaredErrors(handler.controller, handler.handler) : [];
      addErrorResponses(operation, [...new Set([...EDGE_ERRORS, ...(isOpsPath(path) ? [] : LIMITED_ERRORS), ...(operation.requestBody ? BODY_ERRORS : []), ...declared])]);
    }
  }
  return document;
}

/** The DTO bodies the document names, from their class-validator rules; they refuse unknown fields. */
function dtoSchemas(document: OpenAPIObject): Record<string, SchemaObject> {
  const all = validationMetadatasToSchemas({ refPointerPrefix: '#/components/schemas/', additionalConverters: { [ValidationTypes.CUSTOM_VALIDATION]: customRule } }) as Record<string, SchemaObject>;
  const named = Object.keys(document.components?.schemas ?? {});
  return Object.fromEntries(named.flatMap((name) => (all[name] ? [[name, { ...all[name], additionalProperties: false }]] : [])));
}

/**
 * A custom rule (`@Validate`) says nothing the schema can read but the property's primitive type;
 * where that is a list or an object, the property's `@JSONSchema` describes it (the library's own
 * default would point at a component named `Array` or `Object` that no document has).
 */
function customRule(meta: ValidationMetadata): { type?: 'number' | 'string' | 'boolean' } {
  const type: unknown = Reflect.getMetadata('design:type', (meta.target as Type).prototype as object, meta.propertyName);
  if (type === Number) return { type: 'number' };
  if (type === String) return { type: 'string' };
  if (type === Boolean) return { type: 'boolean' };
  return {};
}

function addErrorResponses(operation: OperationObject, codes: ErrorCode[]): void {
  for (const [status, group] of codesByStatus(codes)) {
    const key = String(status);
    const description = `error.code: ${group.join(', ')}`;
    const existing = operation.responses[key] as ResponseObject | undefined;
    if (existing) {
      existing.description = [existing.description, description].filter(Boolean).join('; ');
      continue;
    }
    const staticBody = group.some((code) => 'staticBody' in ERROR_CODES[code]);
    const schema = staticBody ? { oneOf: [ref('Error'), ref('StaticProviderError')] } : ref('Error');
    operation.responses[key] = { description, content: { 'application/json': { schema } } };
  }
}

/** `<Controller>_<method>`, @nestjs/swagger's default operation id, to the handler it names. */
function handlersByOperationId(app: INestApplication): Map<string, { controller: Type; handler: object }> {
  const handlers = new Map<string, { controller: Type; handler: object }>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name !== 'constructor' && typeof handler === 'function') handlers.set(`${controller.name}_${name}`, { controller, handler });
      }
    }
  }
  return handlers;
}
