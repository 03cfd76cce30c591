import type { Type } from '@nestjs/common';
import type { ErrorCode } from '../../errors/error-codes';

const API_ERRORS = Symbol('apiErrors');

/**
 * The error codes a route (or every route of a controller) may answer with, beside the edge's own.
 * Each use adds to the earlier ones, so the guards' decorators and the handler's own can stack; the
 * OpenAPI document turns the union into the operation's error responses by status.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder: object = descriptor ? (descriptor.value as object) : target;
    const earlier = (Reflect.getMetadata(API_ERRORS, holder) as ErrorCode[] | undefined) ?? [];
    Reflect.defineMetadata(API_ERRORS, [...earlier, ...codes], holder);
  };
}

/** Every code declared on the handler and on its controller. */
export function declaredErrors(controller: Type, handler: object): ErrorCode[] {
  const read = (holder: object): ErrorCode[] => (Reflect.getMetadata(API_ERRORS, holder) as ErrorCode[] | undefined) ?? [];
  return [...read(controller), ...read(handler)];
}
