import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { ReqContext, type RequestContext } from '../../../http/request-context';
import { PaidInput, PaidRoute } from '../../payments/http/paid-route.decorator';
import { PaidTools, type PriceAnswer, type SearchAnswer } from '../application/paid-tools';
import { TOKEN_PRICE_SERVICE, WEB_SEARCH_SERVICE } from '../domain/service-entry';
import { ApiPrice, ApiSearch } from './tools-openapi';
import { parsePriceInput, parseSearchInput, type PriceInput, type SearchInput } from '../domain/tool-requests';
import { BodyLimit, PRICE_BODY_LIMIT, SMALL_BODY_LIMIT } from '../../../http/body-limits';

/** The paid tools (spec 4.6, 4.7): flat registry prices, settled before the tool runs; answers are never cached. */
@Controller('v1')
@ApiErrors('tools.not_configured', 'tools.search_provider_error', 'tools.price_provider_error')
export class ToolsController {
  constructor(private readonly tools: PaidTools) {}

  @Post('search')
  @BodyLimit(SMALL_BODY_LIMIT)
  @HttpCode(200)
  @PaidRoute<SearchInput>({ input: ({ body }) => parseSearchInput(body), service: () => ({ kind: 'tool', id: WEB_SEARCH_SERVICE }) })
  @ApiSearch()
  search(@PaidInput() input: SearchInput, @ReqContext() context: RequestContext): Promise<SearchAnswer> {
    return this.tools.webSearch(input, { signal: context.signal, requestId: context.id });
  }

  @Post('solana/price')
  @BodyLimit(PRICE_BODY_LIMIT)
  @HttpCode(200)
  @PaidRoute<PriceInput>({ input: ({ body }) => parsePriceInput(body), service: () => ({ kind: 'tool', id: TOKEN_PRICE_SERVICE }) })
  @ApiPrice()
  price(@PaidInput() input: PriceInput, @ReqContext() context: RequestContext): Promise<PriceAnswer> {
    return this.tools.tokenPrices(input, { signal: context.signal, requestId: context.id });
  }
}
