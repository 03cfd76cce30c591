import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GatewayConfig } from '../../../config/gateway-config';
import { BodyLimit, CHAT_BODY_LIMIT } from '../../../http/body-limits';
import { UnpaidBudget } from '../../rate-limits/application/unpaid-budget';
import { MESSAGES_SURFACE } from '../application/completion-outcome';
import { CompletionPipeline } from '../application/completion-pipeline';
import { ANTHROPIC_CODEC } from './anthropic-codec';
import { parseMessagesRequest } from './anthropic-request';
import { CompletionEndpoint } from './completion-endpoint';
import { ApiCountTokens, ApiMessages } from './messages-openapi';

/**
 * POST /v1/messages and /v1/messages/count_tokens (spec 4.10): read the Anthropic request, hand it
 * to the completion pipeline chat uses, write what it decided in Anthropic's format. The
 * `anthropic-version` and `anthropic-beta` headers are read by nothing, and `x-api-key` is never asked.
 */
@Controller('v1/messages')
export class MessagesController {
  private readonly endpoint: CompletionEndpoint;

  constructor(
    private readonly pipeline: CompletionPipeline,
    config: GatewayConfig,
    unpaid: UnpaidBudget,
  ) {
    this.endpoint = new CompletionEndpoint(pipeline, config, MESSAGES_SURFACE, ANTHROPIC_CODEC, unpaid);
  }

  @Post()
  @BodyLimit(CHAT_BODY_LIMIT)
  @ApiMessages()
  async create(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.serve(req, res, () => parseMessagesRequest(req.body));
  }

  @Post('count_tokens')
  @HttpCode(200)
  @BodyLimit(CHAT_BODY_LIMIT)
  @ApiCountTokens()
  async countTokens(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<{ input_tokens: number }> {
    const request = await this.endpoint.read(req, () => parseMessagesRequest(req.body, { countTokens: true }));
    return { input_tokens: await this.pipeline.countTokens(request, this.endpoint.caller(req, res)) };
  }
}
