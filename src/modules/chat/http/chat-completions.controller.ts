import { Controller, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GatewayConfig } from '../../../config/gateway-config';
import { BodyLimit, CHAT_BODY_LIMIT } from '../../../http/body-limits';
import { UnpaidBudget } from '../../rate-limits/application/unpaid-budget';
import { CHAT_SURFACE } from '../application/completion-outcome';
import { CompletionPipeline } from '../application/completion-pipeline';
import { ApiChatCompletions } from './chat-openapi';
import { parseChatRequest } from './chat-request-validator';
import { CompletionEndpoint } from './completion-endpoint';
import { OPENAI_CODEC } from './openai-codec';

/** POST /v1/chat/completions: read the OpenAI request, hand it to the completion pipeline, write what it decided in OpenAI's format. */
@Controller('v1/chat')
export class ChatCompletionsController {
  private readonly endpoint: CompletionEndpoint;

  constructor(pipeline: CompletionPipeline, config: GatewayConfig, unpaid: UnpaidBudget) {
    this.endpoint = new CompletionEndpoint(pipeline, config, CHAT_SURFACE, OPENAI_CODEC, unpaid);
  }

  @Post('completions')
  @BodyLimit(CHAT_BODY_LIMIT)
  @ApiChatCompletions()
  async create(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.endpoint.serve(req, res, () => parseChatRequest(req.body));
  }
}
