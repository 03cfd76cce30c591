import { TIERS } from './catalog';
import type { ResolvedName } from './model-resolution';

/**
 * Whether a request for a name is served free (spec 1.8: its estimate is exactly 0, so its first
 * candidate is zero-priced) or paid, known before the request is scored: a model is one or the
 * other, and so is a profile whose models all are. `either` is a profile mixing both, whose tier
 * decides (none in the shipped catalog; an operator's may have them).
 */
export type Charge = 'free' | 'paid' | 'either';

export function chargeOf(resolved: ResolvedName): Charge {
  if (resolved.kind === 'model') return resolved.model.free ? 'free' : 'paid';
  const models = TIERS.flatMap((tier) => resolved.table[tier]);
  if (models.every((model) => model.free)) return 'free';
  return models.some((model) => model.free) ? 'either' : 'paid';
}
