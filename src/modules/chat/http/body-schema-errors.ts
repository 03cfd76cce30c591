import type { ErrorObject } from 'ajv';
import { fieldError, GatewayError } from '../../../errors/gateway-error';

/* The 400 a body gets when it fails its wire format's JSON Schema, the same for every codec. */

/** A union's own error (with its description) rather than the first of its branches' errors. */
export function firstError(errors: readonly ErrorObject[]): ErrorObject | undefined {
  return errors.find((error) => error.keyword === 'anyOf') ?? errors[0];
}

/** The 400 for an Ajv error: `messages[0].role must be one of: system, user, ...`, with `messages[0].role` as its `param`. */
export function invalidBody(error: ErrorObject | undefined): GatewayError {
  if (!error) return new GatewayError('request.invalid_body', 'invalid request body');
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
  const subject = path || 'the body';
  const description = (error.parentSchema as { description?: string } | undefined)?.description;
  switch (error.keyword) {
    case 'required': {
      const field = String(error.params.missingProperty);
      const param = path ? `${path}.${field}` : field;
      return fieldError('request.invalid_body', param, `${param} is required`);
    }
    case 'type':
      return atPath(path, `${subject} must be ${String(error.params.type).split(',').join(' or ')}`);
    case 'enum':
      return atPath(path, `${subject} ${description ?? `must be one of: ${(error.params.allowedValues as unknown[]).map(String).join(', ')}`}`);
    case 'const':
    case 'anyOf':
      return atPath(path, `${subject} ${description ?? `must be ${JSON.stringify(error.params.allowedValue)}`}`);
    default:
      return atPath(path, `${subject} ${error.message ?? 'is invalid'}`);
  }
}

/** The body itself at fault (an empty path) names no field. */
function atPath(path: string, message: string): GatewayError {
  return path ? fieldError('request.invalid_body', path, message) : new GatewayError('request.invalid_body', message);
}
