import { Body, Controller, Get, Param, ParseIntPipe, Put, Query, Req } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { Request } from 'express';
import { fieldError, type GatewayError } from '../../../errors/gateway-error';
import { EnterpriseAuth } from '../../../http/enterprise-auth.guard';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { RouteRateLimit } from '../../rate-limits/http/route-rate-limit.guard';
import { BudgetDirectory } from '../application/budget-directory';
import { WalletStatsReader } from '../application/wallet-stats-reader';
import { STATS_DAYS } from '../domain/wallet-stats';
import { BudgetDto, budgetLimits } from './budget-dto';
import { ENTERPRISE_RATE_LIMIT } from './orgs.controller';
import { BUDGET, WALLET_STATS } from './org-openapi';
import { budgetView, walletStatsView } from './org-views';
import { walletOf } from './wallet-path';
import { BodyLimit, SMALL_BODY_LIMIT } from '../../../http/body-limits';

/** A payer wallet's own budget (spec 4.9: the admin token only; an org key is 403) and its stats. */
@Controller('v1/wallets')
@BodyLimit(SMALL_BODY_LIMIT)
@RouteRateLimit('enterprise', ENTERPRISE_RATE_LIMIT)
@ApiErrors('org.storage_not_configured', 'org.wallet_not_found', 'request.invalid_path', 'request.invalid_query')
export class WalletsController {
  constructor(
    private readonly budgets: BudgetDirectory,
    private readonly statsReader: WalletStatsReader,
  ) {}

  @Put(':wallet/budget')
  @EnterpriseAuth('admin-token')
  @ApiAnswer(200, 'the budget and what was spent in each window', BUDGET)
  async setBudget(@Param('wallet') wallet: string, @Body() body: BudgetDto) {
    return budgetView(await this.budgets.setWalletBudget(walletOf(wallet), budgetLimits(body)));
  }

  @Get(':wallet/budget')
  @EnterpriseAuth('admin-token')
  @ApiAnswer(200, 'the budget and what was spent in each window', BUDGET)
  async budget(@Param('wallet') wallet: string) {
    return budgetView(await this.budgets.walletBudget(walletOf(wallet)));
  }

  /** Charged requests of the last `days` UTC days (1 to 90, default 30), today included. */
  @Get(':wallet/stats')
  @EnterpriseAuth('member')
  @ApiAnswer(200, 'charged requests, spend and tokens, in all, by model and by UTC day', WALLET_STATS)
  @ApiQuery({ name: 'days', required: false, schema: { type: 'integer', minimum: STATS_DAYS.min, maximum: STATS_DAYS.max, default: STATS_DAYS.default } })
  async stats(@Req() req: Request, @Param('wallet') wallet: string, @Query('days', new ParseIntPipe({ optional: true, exceptionFactory: () => badDays() })) days = STATS_DAYS.default) {
    if (days < STATS_DAYS.min || days > STATS_DAYS.max) throw badDays();
    const caller = req.enterpriseCaller;
    return walletStatsView(await this.statsReader.stats(caller?.kind === 'org-key' ? caller.orgId : null, walletOf(wallet), days));
  }
}

function badDays(): GatewayError {
  return fieldError('request.invalid_query', 'days', `days must be a whole number from ${STATS_DAYS.min} to ${STATS_DAYS.max}`);
}
