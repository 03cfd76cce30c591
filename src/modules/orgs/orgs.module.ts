import { Module } from '@nestjs/common';
import { RouteLimitsModule } from '../rate-limits/http/route-limits.module';
import { BudgetDirectory } from './application/budget-directory';
import { OrgDirectory } from './application/org-directory';
import { OrgsController } from './http/orgs.controller';
import { WalletBudgetsController } from './http/wallet-budgets.controller';

/** Enterprise management (spec 4.9): the org directory; its storage comes from the storage adapter module. */
@Module({
  imports: [RouteLimitsModule],
  controllers: [OrgsController, WalletBudgetsController],
  providers: [OrgDirectory, BudgetDirectory],
})
export class OrgsModule {}
