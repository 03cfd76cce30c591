import { Controller, Get } from '@nestjs/common';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { FEE_PERCENT } from '../../billing/domain/chat-cost';
import { formatUsdc } from '../../billing/domain/atomic-usdc';
import { CHAT_PATH, MESSAGES_PATH } from '../../chat/application/completion-outcome';
import { ANTHROPIC_REQUEST_SCHEMA, MESSAGES_EXAMPLE } from '../../chat/domain/anthropic-request-schema';
import { CHAT_DISCOVERY } from '../../chat/domain/chat-discovery';
import { EscrowDeposits } from '../../payments/application/escrow-deposits';
import { PaymentChallenges } from '../../payments/application/payment-challenges';
import { ServiceOffers } from '../../tools/application/service-offers';
import { ServiceRegistry } from '../../tools/application/service-registry';
import { TOKEN_PRICE_SERVICE, WEB_SEARCH_SERVICE, type ServiceEntry } from '../../tools/domain/service-entry';
import { withFee } from '../../tools/domain/service-price';
import { X402_DISCOVERY } from './x402-discovery-openapi';
import { PRICE_BODY_SCHEMA, PRICE_EXAMPLE, SEARCH_BODY_SCHEMA, SEARCH_EXAMPLE } from '../../tools/domain/tool-schemas';

/** The input schema and examples of the tools the gateway serves itself, by registry id. */
const TOOL_IO: Readonly<Record<string, { schema: object; example: { input: unknown; output: unknown } }>> = {
  [WEB_SEARCH_SERVICE]: { schema: SEARCH_BODY_SCHEMA, example: SEARCH_EXAMPLE },
  [TOKEN_PRICE_SERVICE]: { schema: PRICE_BODY_SCHEMA, example: PRICE_EXAMPLE },
};

/**
 * GET /.well-known/x402 (spec 4.10): every paid resource, with what a client needs to pay it
 * without reading anything else: the method and path, the schemes, the network, the asset, the
 * recipient, how the price is set (a flat amount, or per token with the fee: the exact amount is
 * the 402's), the input schema with an example, and an output example. The chat entry's input and
 * output are its 402's `extensions.bazaar`; /v1/messages follows it. Only what answers is listed: a tool whose upstream is
 * not configured would answer 503.
 */
@Controller('.well-known')
export class X402DiscoveryController {
  constructor(
    private readonly challenges: PaymentChallenges,
    private readonly deposits: EscrowDeposits,
    private readonly registry: ServiceRegistry,
    private readonly offers: ServiceOffers,
  ) {}

  @Get('x402')
  @ApiAnswer(200, 'every paid resource with its payment terms, price, input schema and examples', X402_DISCOVERY)
  async discovery() {
    const { network, asset, payTo } = this.challenges.terms;
    const escrow = this.deposits.terms;
    const exact = { scheme: 'exact', network, asset, payTo };
    const tools = await this.registry.list({});
    // Both completion surfaces take the same payments at the same per-token price.
    const completion = (resource: string, schema: object, example: { input: unknown; output: unknown }) => ({
      resource,
      method: 'POST',
      type: 'http',
      accepts: [exact, ...(escrow ? [{ scheme: 'escrow', network, asset, payTo: escrow.provider, escrowProgramId: escrow.programId }] : [])],
      price: { kind: 'per-token', currency: 'USDC', feePercent: FEE_PERCENT, rates: '/v1/models', note: 'the exact amount is in the 402 quote of each request; zero-priced models are free' },
      input: { bodyType: 'json', schema, example: example.input },
      output: { example: example.output },
    });
    const resources = [
      completion(CHAT_PATH, CHAT_DISCOVERY.bazaar.schema.properties.input.properties.body, { input: CHAT_DISCOVERY.bazaar.info.input.body, output: CHAT_DISCOVERY.bazaar.info.output.example }),
      completion(MESSAGES_PATH, ANTHROPIC_REQUEST_SCHEMA, MESSAGES_EXAMPLE),
      ...tools.flatMap((entry) => this.toolResource(entry, exact)),
    ];
    return { x402Version: 2, resources };
  }

  /** What cannot be bought now (a tool whose upstream is not configured, an unpriced entry) is left out. */
  private toolResource(entry: ServiceEntry, exact: { scheme: string; network: string; asset: string; payTo: string }): Array<Record<string, unknown>> {
    if (entry.priceAtomic === null || entry.priceAtomic === 0n || !this.offers.available(entry)) return [];
    const cost = withFee(entry.priceAtomic);
    const price = { kind: 'flat', amount: cost.total.toString(), currency: 'USDC', providerCost: formatUsdc(cost.providerCost), platformFee: formatUsdc(cost.platformFee), feePercent: FEE_PERCENT };
    const tool = entry.internal ? TOOL_IO[entry.id] : undefined;
    if (tool)
      return [
        {
          resource: entry.endpoint,
          method: 'POST',
          type: 'http',
          accepts: [exact],
          price,
          input: { bodyType: 'json', schema: tool.schema, example: tool.example.input },
          output: { example: tool.example.output },
        },
      ];
    if (entry.internal) return [];
    // An external service with its own x402 is paid at its endpoint, on its own terms: listed for discovery only.
    if (entry.x402Enabled) return [{ resource: entry.endpoint, method: 'POST', type: 'http', paidDirectly: true, description: entry.description }];
    return [
      {
        resource: `/v1/services/${entry.id}/proxy`,
        method: 'POST',
        type: 'http',
        accepts: [exact],
        price,
        input: { bodyType: 'json', schema: { type: ['object', 'array'] } },
        description: entry.description,
      },
    ];
  }
}
