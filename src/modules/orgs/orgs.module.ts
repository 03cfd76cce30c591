import { Module } from '@nestjs/common';
import { RouteLimitsModule } from '../rate-limits/http/route-limits.module';
import { BudgetDirectory } from './application/budget-directory';
import { OrgDirectory } from './application/org-directory';
import { WalletStatsReader } from './application/wallet-stats-reader';
import { OperatorAuditController } from './http/operator-audit.controller';
import { OrgsController } from './http/orgs.controller';
import { WalletsController } from './http/wallets.controller';
import { WhoAmIController } from './http/whoami.controller';

/** Enterprise management (spec 4.9): the org directory; its storage comes from the storage adapter module. */
@Module({
  imports: [RouteLimitsModule],
  controllers: [OrgsController, WalletsController, OperatorAuditController, WhoAmIController],
  providers: [OrgDirectory, BudgetDirectory, WalletStatsReader],
})
export class OrgsModule {}
