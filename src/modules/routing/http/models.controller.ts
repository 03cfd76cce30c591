import { Controller, Get } from '@nestjs/common';
import { formatScaled, formatUsdc, USDC_DECIMALS } from '../../billing/domain/atomic-usdc';
import { chatCost, FEE_PERCENT } from '../../billing/domain/chat-cost';
import { ModelRouter } from '../application/model-router';
import type { CatalogModel } from '../domain/catalog';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { MODEL_LIST, PRICING } from './models-openapi';

interface ModelEntry {
  id: string;
  object: 'model';
  provider: string;
  display_name: string;
  context_window: number;
  capabilities: CatalogModel['capabilities'];
  pricing: { input_per_million: number; output_per_million: number; currency: 'USDC'; fee_percent: number };
}

/** The example request /pricing prices for each model: 1,000 tokens in all. */
const EXAMPLE_REQUEST = { input_tokens: 500, output_tokens: 500 };

/** GET /v1/models (spec 2.6, 4.2) and GET /pricing; both derived once from the catalog. */
@Controller()
export class ModelsController {
  private readonly modelList: { object: 'list'; data: ModelEntry[] };
  private readonly pricing: object;

  constructor(router: ModelRouter) {
    const { models, version } = router.catalog;
    this.modelList = { object: 'list', data: models.map(modelEntry) };
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

  @Get('pricing')
  @ApiAnswer(200, 'every model with its rates before and after the fee, and the cost of an example request', PRICING)
  prices(): object {
    return this.pricing;
  }
}

function modelEntry(model: CatalogModel): ModelEntry {
  return {
    id: model.id,
    object: 'model',
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
