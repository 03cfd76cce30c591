import { Controller, Get, Req } from '@nestjs/common';
import type { Request } from 'express';
import { version } from '../../../../package.json';
import { ChannelAvailability } from '../../payments/application/channel-availability';
import { EscrowDeposits } from '../../payments/application/escrow-deposits';
import { PaymentChallenges } from '../../payments/application/payment-challenges';
import { AP2_EXTENSION_URI, X402_EXTENSION_URI } from '../domain/a2a-wire';
import { A2A_PATH } from '../application/a2a-tasks';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { AGENT_CARD } from './a2a-openapi';

/** Spec 2.13, 4.8, 9: the agent card at its current path and at the legacy one. */
@Controller('.well-known')
export class AgentCardController {
  constructor(
    private readonly challenges: PaymentChallenges,
    private readonly deposits: EscrowDeposits,
    private readonly channels: ChannelAvailability,
  ) {}

  @Get(['agent-card.json', 'agent.json'])
  @ApiAnswer(200, 'the A2A agent card', AGENT_CARD)
  card(@Req() req: Request) {
    // The card names the endpoint as the client reached it: behind any proxy, the Host it used.
    const origin = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    return {
      name: 'Pay-per-request AI gateway',
      description: 'Chat completions from frontier and open models, paid per request in USDC on Solana with x402; no account, no API key.',
      url: `${origin}${A2A_PATH}`,
      version,
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      provider: { organization: 'gw-gateway', url: origin },
      capabilities: {
        streaming: false,
        pushNotifications: false,
        stateTransitionHistory: false,
        extensions: [
          { uri: AP2_EXTENSION_URI, description: 'Sells chat completions as a merchant.', required: true, params: { roles: ['merchant'] } },
          {
            uri: X402_EXTENSION_URI,
            description: 'Payments with x402 on Solana: the quote in x402.payment.required, the payment in x402.payment.payload.',
            required: true,
            params: { network: 'solana', asset: this.challenges.terms.asset, schemes: ['exact', ...(this.deposits.terms ? ['escrow'] : []), ...(this.channels.enabled ? ['channel'] : [])] },
          },
        ],
      },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [
        {
          id: 'chat-completion',
          name: 'Chat completion',
          description: 'Answers a text message with a model chosen by name, alias or routing profile (metadata.model, default auto).',
          tags: ['chat', 'llm', 'x402'],
          inputModes: ['text/plain'],
          outputModes: ['text/plain'],
        },
      ],
    };
  }
}
