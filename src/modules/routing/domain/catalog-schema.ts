import { PROVIDER_NAMES } from '../../providers/domain/provider-name';
import { PROFILES, TIERS } from './catalog';

const RATE = { type: 'string', pattern: '^\\d{1,6}(\\.\\d{1,6})?$' } as const;
const MODEL_ID = { type: 'string', pattern: `^(${PROVIDER_NAMES.join('|')})/[a-z0-9][a-z0-9._-]{0,99}$` } as const;
const CHAIN = { type: 'array', items: MODEL_ID, minItems: 1, maxItems: 8 } as const;

/** The shape of catalog/catalog.json (JSON Schema draft 2020-12 subset understood by Ajv). */
export const CATALOG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'models', 'aliases', 'profiles', 'profile_aliases'],
  properties: {
    version: { type: 'string', minLength: 1 },
    models: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'upstream_model', 'display_name', 'input_per_million', 'output_per_million', 'context_window', 'max_output', 'capabilities'],
        properties: {
          id: MODEL_ID,
          upstream_model: { type: 'string', minLength: 1 },
          display_name: { type: 'string', minLength: 1 },
          input_per_million: RATE,
          output_per_million: RATE,
          context_window: { type: 'integer', minimum: 1 },
          max_output: { type: 'integer', minimum: 1 },
          capabilities: {
            type: 'object',
            additionalProperties: false,
            required: ['tools', 'vision', 'reasoning'],
            properties: { tools: { type: 'boolean' }, vision: { type: 'boolean' }, reasoning: { type: 'boolean' } },
          },
        },
      },
    },
    aliases: { type: 'object', additionalProperties: MODEL_ID, propertyNames: { pattern: '^[a-z][a-z0-9-]{0,31}$' } },
    profiles: {
      type: 'object',
      additionalProperties: false,
      required: [...PROFILES],
      properties: Object.fromEntries(
        PROFILES.map((profile) => [profile, { type: 'object', additionalProperties: false, required: [...TIERS], properties: Object.fromEntries(TIERS.map((tier) => [tier, CHAIN])) }]),
      ),
    },
    profile_aliases: { type: 'object', additionalProperties: { enum: [...PROFILES] } },
  },
} as const;

/** The catalog file as written, once it matches CATALOG_SCHEMA. */
export interface CatalogFile {
  version: string;
  models: Array<{
    id: string;
    upstream_model: string;
    display_name: string;
    input_per_million: string;
    output_per_million: string;
    context_window: number;
    max_output: number;
    capabilities: { tools: boolean; vision: boolean; reasoning: boolean };
  }>;
  aliases: Record<string, string>;
  profiles: Record<string, Record<string, string[]>>;
  profile_aliases: Record<string, string>;
}
