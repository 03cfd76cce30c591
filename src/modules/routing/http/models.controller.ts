import { Controller, Get, Param } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { USDC_DECIMALS } from '../../../../libs/x402';
import { formatScaled, formatUsdc } from '../../billing/domain/atomic-usdc';
import { chatCost, FEE_PERCENT } from '../../billing/domain/chat-cost';
import { ModelRouter } from '../application/model-router';
import type { Catalog, CatalogModel } from '../domain/catalog';
import { catalogEntry } from '../domain/model-resolution';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { MODEL, MODEL_LIST, PRICING } from './models-openapi';

interface ModelEntry {
  id: string;
  object: 'model';
  /** OpenAI's model object: the catalog version's date, in Unix seconds. */
  created: number;
  /** OpenAI's model object: the provider, as `provider` says too. */
  owned_by: string;
  provider: string;
  display_name: string;
  context_window: number;
  capabilities: CatalogModel['capabilities'];
  pricing: { input_per_million: number; output_per_million: number; currency: 'USDC'; fee_percent: number };
}

/** The example request /pricing prices for each model: 1,000 tokens in all. */
const EXAMPLE_REQUEST = { input_tokens: 500, output_tokens: 500 };

/**
 * GET /v1/models (spec 2.6, 4.2), GET /v1/models/{model} and GET /pricing; all derived once from
 * the catalog. Like the list, a model's own route is exempt from rate limiting (spec 8).
 */
@Controller()
export class ModelsController {
  private readonly catalog: Catalog;
  private readonly modelList: { object: 'list'; data: ModelEntry[] };
  private readonly entries: ReadonlyMap<string, ModelEntry>;
  private readonly pricing: object;

  constructor(router: ModelRouter) {
    this.catalog = router.catalog;
    const { models, version, released } = this.catalog;
    this.modelList = { object: 'list', data: models.map((model) => modelEntry(model, released)) };
    this.entries = new Map(this.modelList.data.map((entry) => [entry.id, entry]));
    this.pricing = {
      object: 'pricing',
      catalog_version: version,
      currency: 'USDC',
      fee_percent: FEE_PERCENT,
      example_request: EXAMPLE_REQUEST,
      data: models.map(pricingEntry),
    };
  }

  @Get('v1/models')
  @ApiAnswer(200, 'the catalog: every model with its capabilities and provider rates', MODEL_LIST)
  list(): { object: 'list'; data: ModelEntry[] } {
    return this.modelList;
  }

  /** `openai%2Fgpt-4o` (as the `openai` SDK sends an id) arrives decoded; an alias answers its model's entry. */
  @Get('v1/models/:model')
  @ApiParam({ name: 'model', description: 'a model id with its slash as %2F, or an alias; a profile is not a model' })
  @ApiAnswer(200, "one model of the catalog; an alias answers its model's entry", MODEL)
  @ApiErrors('chat.model_not_found')
  retrieve(@Param('model') name: string): ModelEntry {
    return this.entry(name);
  }

  /** The same, for an id written with its slash as it is (`/v1/models/openai/gpt-4o`). */
  @Get('v1/models/:provider/:model')
  @ApiParam({ name: 'provider', description: 'the part of the id before its slash' })
  @ApiParam({ name: 'model', description: 'the part of the id after its slash' })
  @ApiAnswer(200, 'one model of the catalog, by its id', MODEL)
  @ApiErrors('chat.model_not_found')
  retrieveById(@Param('provider') provider: string, @Param('model') name: string): ModelEntry {
    return this.entry(`${provider}/${name}`);
  }

  @Get('pricing')
  @ApiAnswer(200, 'every model with its rates before and after the fee, and the cost of an example request', PRICING)
  prices(): object {
    return this.pricing;
  }

  private entry(name: string): ModelEntry {
    return this.entries.get(catalogEntry(this.catalog, name).id) as ModelEntry;
  }
}

function modelEntry(model: CatalogModel, released: number): ModelEntry {
  return {
    id: model.id,
    object: 'model',
    created: released,
    owned_by: model.provider,
    provider: model.provider,
    display_name: model.displayName,
    context_window: model.contextWindow,
    capabilities: model.capabilities,
    pricing: {
      // Display values at the edge: the catalog's decimal strings as JSON numbers (spec 2.6).
      input_per_million: Number(model.inputPerMillion),
      output_per_million: Number(model.outputPerMillion),
      currency: 'USDC',
      fee_percent: FEE_PERCENT,
    },
  };
}

function pricingEntry(model: CatalogModel): object {
  const withFee = (atomicPerMillion: bigint): string => formatScaled(atomicPerMillion * BigInt(100 + FEE_PERCENT), USDC_DECIMALS + 2);
  const example = chatCost(EXAMPLE_REQUEST.input_tokens, EXAMPLE_REQUEST.output_tokens, model.rates);
  return {
    id: model.id,
    provider: model.provider,
    display_name: model.displayName,
    free: model.free,
    input_per_million: { provider: formatUsdc(model.rates.inputAtomicPerMillion), with_fee: withFee(model.rates.inputAtomicPerMillion) },
    output_per_million: { provider: formatUsdc(model.rates.outputAtomicPerMillion), with_fee: withFee(model.rates.outputAtomicPerMillion) },
    example_cost: { provider_cost: formatUsdc(example.providerCost), platform_fee: formatUsdc(example.platformFee), total: formatUsdc(example.total) },
  };
}
