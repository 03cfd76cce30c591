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
