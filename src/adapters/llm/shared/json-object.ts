import { isJsonObject } from '../../../../libs/json/json-object';

export { isJsonObject };

/** The JSON object `text` holds; undefined when it is not JSON or holds another kind of value. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isJsonObject(value) ? value : undefined;
}
