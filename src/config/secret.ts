import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A configuration value that must never reach a log line or an error message.
 * Serialising or inspecting it yields "[redacted]"; only `reveal()` gives the value.
 */
export class Secret<T = string> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  reveal(): T {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
