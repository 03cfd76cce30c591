import type { TokenRates } from '../../billing/domain/chat-cost';
import type { ProviderName } from '../../providers/domain/provider-name';

/** The router's tiers (spec 1.6), cheapest first. */
export const TIERS = ['Simple', 'Medium', 'Complex', 'Reasoning'] as const;
export type Tier = (typeof TIERS)[number];

/** Routing profiles (spec 1.6): a model id of its own kind, answered by the router. */
export const PROFILES = ['auto', 'eco', 'premium', 'free'] as const;
export type Profile = (typeof PROFILES)[number];

export interface ModelCapabilities {
  streaming: boolean;
  tools: boolean;
  vision: boolean;
  reasoning: boolean;
}

export interface CatalogModel {
  /** `<provider>/<model>`, what clients pass as `model`. */
  id: string;
  provider: ProviderName;
  /** The name the provider's own API knows the model by. */
  upstreamModel: string;
  displayName: string;
  /** The catalog's USDC-per-million-token rates as written (for display only). */
  inputPerMillion: string;
  outputPerMillion: string;
  rates: TokenRates;
  contextWindow: number;
  maxOutput: number;
  capabilities: ModelCapabilities;
  /** Both rates zero: every estimate is exactly 0, so it is served free (spec 1.8). */
  free: boolean;
}

/** For each tier, the models to try in order: the first capable one answers, the rest are fallbacks. */
export type ProfileTable = Readonly<Record<Tier, readonly CatalogModel[]>>;

/** The validated catalog: models, the seven aliases and the profile tables. */
export class Catalog {
  private readonly byId: ReadonlyMap<string, CatalogModel>;

  constructor(
    /** `YYYY-MM-DD`, then optionally `.<n>` for a second version that day. */
    readonly version: string,
    /** The version's date in Unix seconds (00:00 UTC): what OpenAI's model object calls `created`. */
    readonly released: number,
    readonly models: readonly CatalogModel[],
    private readonly aliases: ReadonlyMap<string, CatalogModel>,
    private readonly profiles: ReadonlyMap<string, { profile: Profile; table: ProfileTable }>,
  ) {
    this.byId = new Map(models.map((model) => [model.id, model]));
  }

  model(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  alias(name: string): CatalogModel | undefined {
    return this.aliases.get(name);
  }

  /** A profile by its name or one of its aliases (`oss` and `open` are `free`). */
  profile(name: string): { profile: Profile; table: ProfileTable } | undefined {
    return this.profiles.get(name);
  }

  aliasNames(): string[] {
    return [...this.aliases.keys()];
  }

  profileNames(): string[] {
    return [...this.profiles.keys()];
  }

  /** A summary for logs and serialised configuration (the rates are bigint, which JSON cannot hold). */
  toJSON(): { version: string; models: string[] } {
    return { version: this.version, models: this.models.map((model) => model.id) };
  }
}
