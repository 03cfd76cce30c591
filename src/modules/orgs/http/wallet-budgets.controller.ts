import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { GatewayError } from '../../../errors/gateway-error';
import { EnterpriseAuth } from '../../../http/enterprise-auth.guard';
import { RouteRateLimit } from '../../rate-limits/http/route-rate-limit.guard';
import { BudgetDirectory } from '../application/budget-directory';
import { WALLET_ADDRESS } from '../domain/org';
import { BudgetDto, budgetLimits } from './budget-dto';
import { ENTERPRISE_RATE_LIMIT } from './orgs.controller';
import { budgetView } from './org-views';

/** A payer wallet's own budget (spec 4.9): the admin token only; an org key is 403. */
@Controller('v1/wallets')
@RouteRateLimit('enterprise', ENTERPRISE_RATE_LIMIT)
export class WalletBudgetsController {
  constructor(private readonly budgets: BudgetDirectory) {}

  @Put(':wallet/budget')
  @EnterpriseAuth('admin-token')
  async setBudget(@Param('wallet') wallet: string, @Body() body: BudgetDto) {
    return budgetView(await this.budgets.setWalletBudget(walletOf(wallet), budgetLimits(body)));
  }

  @Get(':wallet/budget')
  @EnterpriseAuth('admin-token')
  async budget(@Param('wallet') wallet: string) {
    return budgetView(await this.budgets.walletBudget(walletOf(wallet)));
  }
}

/** A malformed wallet in a path is a 400, not a 404: the client wrote it wrong. */
function walletOf(wallet: string): string {
  if (!WALLET_ADDRESS.test(wallet)) throw new GatewayError('request.invalid_path', 'wallet must be a base58 address of 32 to 44 characters');
  return wallet;
}
