import { ApiResponse } from '@nestjs/swagger';
import type { HeadersObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { asSchema, type JsonSchema } from './wire-schemas';

/** A JSON success response of a route, for the OpenAPI document. */
export function ApiAnswer(status: number, description: string, schema: JsonSchema, options: { example?: unknown; headers?: HeadersObject } = {}): MethodDecorator & ClassDecorator {
  const media = options.example === undefined ? { schema: asSchema(schema) } : { schema: asSchema(schema), example: options.example };
  return ApiResponse({ status, description, headers: options.headers, content: { 'application/json': media } });
}
