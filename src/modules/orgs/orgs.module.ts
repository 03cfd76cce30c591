import { Module } from '@nestjs/common';
import { RouteLimitsModule } from '../rate-limits/http/route-limits.module';
import { OrgDirectory } from './application/org-directory';
import { OrgsController } from './http/orgs.controller';

/** Enterprise management (spec 4.9): the org directory; its storage comes from the storage adapter module. */
@Module({
  imports: [RouteLimitsModule],
  controllers: [OrgsController],
  providers: [OrgDirectory],
})
export class OrgsModule {}
