import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { fieldError, GatewayError } from '../errors/gateway-error';
import { MAX_BODY_NESTING } from './json-body-scanner';

/** More keys than this in one object is not a REST body: class-transformer's key handling is quadratic in them. */
const MAX_KEYS_PER_OBJECT = 1_000;
/** Objects, arrays and values in one body, all levels together. */
const MAX_VALUES = 100_000;
/** Messages quote field names; a hostile name is cut so the answer stays small. */
const MAX_QUOTED_NAME = 100;

/**
 * Request bodies of the REST routes, as class-validator DTOs (the chat body keeps its Ajv schema:
 * docs/decisions.md, "Request bodies"). Unknown fields are refused, values are converted to the
 * DTO's class, and the first problem is the 400 in the spec's envelope, naming its field (also in
 * `param`). Before
 * any of that, the body's shape is bounded and names that Object.prototype also has are refused:
 * class-validator would take them for declared properties and drop them silently.
 */
class DtoValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && this.toValidate(metadata)) checkShape(value);
    return super.transform(value, metadata);
  }
}

export function dtoValidationPipe(): ValidationPipe {
  return new DtoValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => firstProblem(errors),
  });
}

/**
 * One pass over the body, without recursion: a bounded number of values and keys, a bounded depth
 * (the edge bounds bodies read from HTTP the same way; this holds for any body the pipe is given),
 * no inherited names. Children are pushed one by one: spreading a 300,000-element array into one
 * call overflows the stack (a 500 before this was written so).
 */
function checkShape(body: unknown): void {
  const pending: Array<{ value: unknown; depth: number }> = [{ value: body, depth: 1 }];
  let values = 0;
  while (pending.length > 0) {
    const { value, depth } = pending.pop() as { value: unknown; depth: number };
    if (++values > MAX_VALUES) throw new GatewayError('request.invalid_body', `the body holds more than ${MAX_VALUES} values`);
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_BODY_NESTING) throw new GatewayError('request.nesting_too_deep', `the body is nested too deeply: objects and arrays may nest at most ${MAX_BODY_NESTING} levels`);
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) pending.push({ value: item, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > MAX_KEYS_PER_OBJECT) throw new GatewayError('request.invalid_body', `an object of the body has more than ${MAX_KEYS_PER_OBJECT} fields`);
    const inherited = keys.find((key) => key in Object.prototype);
    if (inherited !== undefined) throw new GatewayError('request.invalid_body', `property ${quoted(inherited)} should not exist`);
    for (const key of keys) pending.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
  }
}

/** `members[0].role must be one of ...`: the deepest first constraint, with its path (the `param`). */
function firstProblem(errors: readonly ValidationError[], path = ''): GatewayError {
  const [error] = errors;
  if (!error) return new GatewayError('request.invalid_body', 'invalid request body');
  const name = quoted(error.property);
  const field = path === '' ? name : /^\d+$/.test(error.property) ? `${path}[${name}]` : `${path}.${name}`;
  const constraint = error.constraints && Object.values(error.constraints)[0];
  if (!constraint) return firstProblem(error.children ?? [], field);
  const message = constraint.startsWith(error.property) ? `${field}${constraint.slice(error.property.length)}` : `${field}: ${constraint.split(error.property).join(name)}`;
  return fieldError('request.invalid_body', field, message);
}

function quoted(name: string): string {
  return name.length > MAX_QUOTED_NAME ? `${name.slice(0, MAX_QUOTED_NAME)}...` : name;
}
