import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { GatewayError } from '../errors/gateway-error';

/**
 * Request bodies of the REST routes, as class-validator DTOs (the chat body keeps its Ajv schema:
 * docs/decisions.md, "Request bodies"). Unknown fields are refused, values are converted to the
 * DTO's class, and the first problem is the 400 in the spec's envelope, naming its field.
 */
export function dtoValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new GatewayError('request.invalid_body', firstProblem(errors)),
  });
}

/** `members[0].role must be one of ...`: the deepest first constraint, with its path. */
function firstProblem(errors: readonly ValidationError[], path = ''): string {
  const [error] = errors;
  if (!error) return 'invalid request body';
  const field = path === '' ? error.property : /^\d+$/.test(error.property) ? `${path}[${error.property}]` : `${path}.${error.property}`;
  const constraint = error.constraints && Object.values(error.constraints)[0];
  if (constraint) return constraint.startsWith(error.property) ? `${field}${constraint.slice(error.property.length)}` : `${field}: ${constraint}`;
  return firstProblem(error.children ?? [], field);
}
