import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../../../config/gateway-config';
import { capableCandidates, requireFit } from '../domain/candidate-selection';
import type { Catalog, CatalogModel, Profile, Tier } from '../domain/catalog';
import { scoreComplexity } from '../domain/complexity-scorer';
import { resolveModelName } from '../domain/model-resolution';
import { chargeOf, type Charge } from '../domain/name-charge';
import type { RoutingSignals } from '../domain/routing-signals';

export interface RoutedModel {
  /** Capable models in the order to try them; the first answers and prices the request. */
  candidates: readonly CatalogModel[];
  /** Present when a profile was asked for and the router chose. */
  routing: { profile: Profile; tier: Tier; score: number } | null;
}

/** Turns a request's `model` into the models that will answer it (spec 4.1 step 1). */
@Injectable()
export class ModelRouter {
  readonly catalog: Catalog;

  constructor(config: GatewayConfig) {
    this.catalog = config.catalog;
  }

  /** Free or paid, from the name alone (an unknown name is refused here, as in route()). */
  charge(modelName: string): Charge {
    return chargeOf(resolveModelName(this.catalog, modelName));
  }

  route(modelName: string, signals: RoutingSignals): RoutedModel {
    const resolved = resolveModelName(this.catalog, modelName);
    if (resolved.kind === 'model') return { candidates: [requireFit(resolved.model, signals)], routing: null };
    const { tier, score } = scoreComplexity(signals);
    return {
      candidates: capableCandidates(resolved.table, tier, signals, modelName),
      routing: { profile: resolved.profile, tier, score },
    };
  }
}
