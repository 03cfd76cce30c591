import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GatewayConfig } from '../../../config/gateway-config';
import { BodyLimit, SMALL_BODY_LIMIT } from '../../../http/body-limits';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { RouteRateLimit } from '../../rate-limits/http/route-rate-limit.guard';
import { ChannelAvailability } from '../application/channel-availability';
import { ChannelCloses } from '../application/channel-closes';
import { ChannelOpenings } from '../application/channel-openings';
import { PaymentChallenges } from '../application/payment-challenges';
import { closeAmounts, type Channel } from '../domain/channel';
import { PaymentChain } from '../ports/payment-chain';
import { CloseChannelDto, OpenChannelDto } from './channel-dtos';
import { CHANNEL, CHANNEL_CONFIG } from './payments-openapi';

/** Opens and closes reach the chain: limited per client network before any RPC. */
export const CHANNEL_RATE_LIMIT = 60;

/** The channel routes (docs/decisions.md, "Channels"); amounts are atomic decimal strings. */
@Controller('v1/channel')
@BodyLimit(SMALL_BODY_LIMIT)
@ApiErrors('payment.channel_unavailable')
export class ChannelsController {
  constructor(
    private readonly availability: ChannelAvailability,
    private readonly openings: ChannelOpenings,
    private readonly closes: ChannelCloses,
    private readonly challenges: PaymentChallenges,
    private readonly chain: PaymentChain,
    private readonly config: GatewayConfig,
  ) {}

  /** The terms a channel client needs; answered with channels off too (`enabled: false`). */
  @Get('config')
  @ApiAnswer(200, 'whether channels are on, custody, the minimum deposit and the voucher expiry margin', CHANNEL_CONFIG)
  @RouteRateLimit('channel-config', CHANNEL_RATE_LIMIT)
  async configuration() {
    const { network, asset, payTo } = this.challenges.terms;
    const slot = await this.chain.slot().catch(() => null);
    return {
      enabled: this.availability.enabled,
      custody: this.availability.enabled ? this.availability.require().chain.custody : null,
      recipient: payTo,
      mint: asset,
      network,
      min_deposit: this.config.channels.minDepositAtomic.toString(),
      current_slot: slot === null ? null : Number(slot),
      min_expiry_slots: Number(this.config.channels.minExpirySlots),
    };
  }

  /** 201 with the new channel once its funding landed; 200 with the same channel for a repeat of the same open. */
  @Post('open')
  @HttpCode(201)
  @ApiAnswer(201, 'the channel, open: its funding landed', CHANNEL)
  @ApiAnswer(200, 'a repeat of an open with the same funding and body: the same channel', CHANNEL)
  @ApiErrors(
    'payment.channel_funding_invalid',
    'payment.channel_open_conflict',
    'payment.unverifiable',
    'payment.replayed',
    'payment.insufficient_funds',
    'payment.blockhash_expired',
    'payment.blockhash_short_lived',
    'payment.fee_not_sponsored',
    'payment.chain_unreachable',
    'payment.unconfirmed',
    'payment.settlement_failed',
    'payment.settlement_reverted',
    'payment.replay_store_full',
    'rate_limit.payment_in_flight',
    'receipt.storage_unavailable',
  )
  @RouteRateLimit('channel-open', CHANNEL_RATE_LIMIT)
  async open(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Body() body: OpenChannelDto) {
    const { channel, created } = await this.openings.open({
      agentWallet: body.agent_wallet,
      sessionKey: body.session_key ?? null,
      fundingTx: body.funding_tx,
      clientAddress: req.gw.clientAddress,
      requestId: req.gw.id,
    });
    if (!created) res.status(200);
    return this.view(channel);
  }

  /** 202: the channel is closing (or closed); the settlement is sent by the close job. Idempotent. */
  @Post('close')
  @HttpCode(202)
  @ApiAnswer(202, 'the channel, closing or closed', CHANNEL)
  @ApiErrors('payment.channel_not_found', 'payment.channel_bad_signature', 'payment.channel_not_open', 'rate_limit.channel_busy')
  @RouteRateLimit('channel-close', CHANNEL_RATE_LIMIT)
  async close(@Body() body: CloseChannelDto) {
    return this.view(await this.closes.close(body.channel_id, body.signature));
  }

  @Get(':id')
  @ApiAnswer(200, 'the channel in any status', CHANNEL)
  @ApiErrors('payment.channel_not_found')
  @RouteRateLimit('channel-config', CHANNEL_RATE_LIMIT)
  async read(@Param('id') id: string) {
    return this.view(await this.closes.read(this.availability.require(), id));
  }

  private view(channel: Channel) {
    const { refund, payout } = closeAmounts(channel);
    return {
      channel_id: channel.id,
      agent_wallet: channel.agentWallet,
      session_key: channel.sessionKey,
      deposited: channel.deposited.toString(),
      last_cumulative: channel.lastCumulative.toString(),
      refund: refund.toString(),
      payout: payout.toString(),
      status: channel.status,
      funding_signature: channel.fundingSignature,
      custody: channel.custody,
      network: this.challenges.terms.network,
      close_signature: channel.closeSignature,
    };
  }
}
