import { GatewayError } from '../../../errors/gateway-error';
import type { Catalog, CatalogModel, Profile, ProfileTable } from './catalog';

export type ResolvedName = { kind: 'model'; model: CatalogModel } | { kind: 'profile'; profile: Profile; table: ProfileTable };

/**
 * What a request's `model` names (spec 2.1): a `<provider>/<model>` id, one of the aliases, or a
 * profile (with its aliases). Names match exactly; nothing else resolves.
 */
export function resolveModelName(catalog: Catalog, name: string): ResolvedName {
  const model = catalog.model(name) ?? catalog.alias(name);
  if (model) return { kind: 'model', model };
  const profile = catalog.profile(name);
  if (profile) return { kind: 'profile', ...profile };
  throw modelNotFound(name);
}

/**
 * The catalog entry an id or an alias names (GET /v1/models/{model}): a profile is no model, so it
 * is not found there, as anything else.
 */
export function catalogEntry(catalog: Catalog, name: string): CatalogModel {
  const model = catalog.model(name) ?? catalog.alias(name);
  if (!model) throw modelNotFound(name);
  return model;
}

function modelNotFound(name: string): GatewayError {
  return new GatewayError('chat.model_not_found', `model not found: ${name.length > 200 ? `${name.slice(0, 200)}...` : name}`);
}

/** Anthropic's date suffix on a model id: `claude-sonnet-4-20250514`. */
const DATE_SUFFIX = /-\d{8}$/;

/**
 * The catalog id a bare Anthropic model id names (`claude-haiku-4-5`, `claude-sonnet-4-20250514`),
 * as coding agents on the Anthropic Messages surface send them (docs/decisions.md, "Bare Anthropic
 * model ids"): the Anthropic entry whose id, or whose upstream model, is that name with or without
 * its date suffix. Any other name, a catalog name included, is returned as it is.
 */
export function catalogNameOfBareAnthropicId(catalog: Catalog, name: string): string {
  if (name.includes('/') || catalog.model(name) || catalog.alias(name) || catalog.profile(name)) return name;
  const names = [name, name.replace(DATE_SUFFIX, '')];
  const named = (model: CatalogModel): boolean => model.provider === 'anthropic' && names.some((bare) => model.id === `anthropic/${bare}` || model.upstreamModel === bare);
  return catalog.models.find(named)?.id ?? name;
}
