import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AdminOnly } from '../../../http/admin.guard';
import { EnterpriseAuth } from '../../../http/enterprise-auth.guard';
import { ApiAnswer } from '../../../http/openapi/api-answer';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { RouteRateLimit } from '../../rate-limits/http/route-rate-limit.guard';
import { BudgetDirectory } from '../application/budget-directory';
import { OrgDirectory, type OrgCaller } from '../application/org-directory';
import { BudgetDto, budgetLimits } from './budget-dto';
import { AddMemberDto, AddTeamWalletDto, CreateOrgDto, CreateTeamDto, IssueKeyDto, LeaveTeamDto } from './org-dtos';
import { AUDIT_PAGE_QUERY, auditPagePipe, checkedAuditPage } from './audit-page';
import { IdPipe } from './id.pipe';
import { walletOf } from './wallet-path';
import { API_KEY, API_KEYS, AUDIT_PAGE, BUDGET, ISSUED_KEY, MEMBER, MEMBERS, ORG, ORGS, TEAM, TEAM_WALLET, TEAM_WALLETS, TEAMS } from './org-openapi';
import { auditView, budgetView, keyView, listView, memberView, orgView, teamView, teamWalletView } from './org-views';
import { BodyLimit, SMALL_BODY_LIMIT } from '../../../http/body-limits';

/** Requests per minute per client across the enterprise routes (docs/decisions.md, "Enterprise"). */
export const ENTERPRISE_RATE_LIMIT = 120;

/** The enterprise API (spec 4.9): orgs, members, teams, team wallets, API keys and the audit. */
@Controller('v1/orgs')
@BodyLimit(SMALL_BODY_LIMIT)
@RouteRateLimit('enterprise', ENTERPRISE_RATE_LIMIT)
@ApiErrors('org.storage_not_configured', 'org.already_exists', 'org.team_not_found', 'org.key_not_found', 'org.role_not_grantable', 'request.invalid_query')
export class OrgsController {
  constructor(
    private readonly directory: OrgDirectory,
    private readonly budgets: BudgetDirectory,
  ) {}

  @Post()
  @HttpCode(201)
  @AdminOnly('unavailable')
  @ApiAnswer(201, 'the org, with its owner as first member', ORG)
  async createOrg(@Body() body: CreateOrgDto) {
    return orgView(await this.directory.createOrg(body.name, body.owner_wallet));
  }

  /** Every org, oldest first: the operator's view (the console's orgs page). */
  @Get()
  @AdminOnly('unavailable')
  @ApiAnswer(200, 'every org, oldest first', ORGS)
  async orgs() {
    return listView(await this.directory.orgs(), orgView);
  }

  @Get(':org_id')
  @EnterpriseAuth('member')
  @ApiAnswer(200, 'the org', ORG)
  async org(@Param('org_id', IdPipe) orgId: string) {
    return orgView(await this.directory.org(orgId));
  }

  @Post(':org_id/members')
  @HttpCode(201)
  @EnterpriseAuth('admin')
  @ApiAnswer(201, 'the member', MEMBER)
  async addMember(@Req() req: Request, @Param('org_id', IdPipe) orgId: string, @Body() body: AddMemberDto) {
    return memberView(await this.directory.addMember(callerOf(req), orgId, body.wallet_address, body.role));
  }

  @Get(':org_id/members')
  @EnterpriseAuth('member')
  @ApiAnswer(200, 'the members', MEMBERS)
  async members(@Param('org_id', IdPipe) orgId: string) {
    return listView(await this.directory.members(orgId), memberView);
  }

  @Post(':org_id/teams')
  @HttpCode(201)
  @EnterpriseAuth('admin')
  @ApiAnswer(201, 'the team', TEAM)
  async createTeam(@Req() req: Request, @Param('org_id', IdPipe) orgId: string, @Body() body: CreateTeamDto) {
    return teamView(await this.directory.createTeam(callerOf(req), orgId, body.name));
  }

  @Get(':org_id/teams')
  @EnterpriseAuth('member')
  @ApiAnswer(200, 'the teams', TEAMS)
  async teams(@Param('org_id', IdPipe) orgId: string) {
    return listView(await this.directory.teams(orgId), teamView);
  }

  /** 201 for a new membership; 200 when the wallet's consent is recorded on a membership that had none. */
  @Post(':org_id/teams/:team_id/wallets')
  @HttpCode(201)
  @EnterpriseAuth('admin')
  @ApiAnswer(201, 'the team wallet', TEAM_WALLET)
  @ApiAnswer(200, "the team wallet, the wallet's consent now recorded", TEAM_WALLET)
  @ApiErrors('org.consent_required', 'org.consent_invalid')
  async addTeamWallet(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Param('org_id', IdPipe) orgId: string,
    @Param('team_id', IdPipe) teamId: string,
    @Body() body: AddTeamWalletDto,
  ) {
    const { wallet, created } = await this.directory.addTeamWallet(callerOf(req), orgId, teamId, body.wallet_address, body.consent_signature);
    if (!created) res.status(200);
    return teamWalletView(wallet);
  }

  /** No key needed: the wallet's own signature is the credential. */
  @Post(':org_id/teams/:team_id/wallets/:wallet/leave')
  @HttpCode(200)
  @ApiAnswer(200, 'the team wallet that was', TEAM_WALLET)
  @ApiErrors('org.consent_invalid', 'org.team_wallet_not_found', 'request.invalid_path')
  async leaveTeam(@Param('org_id', IdPipe) orgId: string, @Param('team_id', IdPipe) teamId: string, @Param('wallet') wallet: string, @Body() body: LeaveTeamDto) {
    return teamWalletView(await this.directory.leaveTeam(orgId, teamId, walletOf(wallet), body.consent_signature));
  }

  @Get(':org_id/teams/:team_id/wallets')
  @EnterpriseAuth('member')
  @ApiAnswer(200, 'the team wallets', TEAM_WALLETS)
  async teamWallets(@Param('org_id', IdPipe) orgId: string, @Param('team_id', IdPipe) teamId: string) {
    return listView(await this.directory.teamWallets(orgId, teamId), teamWalletView);
  }

  @Put(':org_id/teams/:team_id/budget')
  @EnterpriseAuth('admin')
  @ApiAnswer(200, 'the budget and what was spent in each window', BUDGET)
  async setTeamBudget(@Req() req: Request, @Param('org_id', IdPipe) orgId: string, @Param('team_id', IdPipe) teamId: string, @Body() body: BudgetDto) {
    return budgetView(await this.budgets.setTeamBudget(callerOf(req).actor, orgId, teamId, budgetLimits(body)));
  }

  @Get(':org_id/teams/:team_id/budget')
  @EnterpriseAuth('admin')
  @ApiAnswer(200, 'the budget and what was spent in each window', BUDGET)
  async teamBudget(@Param('org_id', IdPipe) orgId: string, @Param('team_id', IdPipe) teamId: string) {
    return budgetView(await this.budgets.teamBudget(orgId, teamId));
  }

  /** The key's secret is in this answer only. */
  @Post(':org_id/api-keys')
  @HttpCode(201)
  @EnterpriseAuth('admin')
  @ApiAnswer(201, 'the key, with its secret shown this once', ISSUED_KEY)
  async issueKey(@Req() req: Request, @Param('org_id', IdPipe) orgId: string, @Body() body: IssueKeyDto) {
    const { key, secret } = await this.directory.issueKey(callerOf(req), orgId, body.name, body.role);
    const { revoked_at: _revoked, ...shown } = keyView(key);
    return { ...shown, key: secret };
  }

  @Get(':org_id/api-keys')
  @EnterpriseAuth('admin')
  @ApiAnswer(200, 'the keys, revoked ones included, without secrets', API_KEYS)
  async keys(@Param('org_id', IdPipe) orgId: string) {
    return listView(await this.directory.keys(orgId), keyView);
  }

  @Delete(':org_id/api-keys/:key_id')
  @EnterpriseAuth('admin')
  @ApiAnswer(200, 'the revoked key', API_KEY)
  async revokeKey(@Req() req: Request, @Param('org_id', IdPipe) orgId: string, @Param('key_id', IdPipe) keyId: string) {
    return keyView(await this.directory.revokeKey(callerOf(req), orgId, keyId));
  }

  /** 50 entries a page, oldest first; `page` counts from 1. */
  @Get(':org_id/audit')
  @EnterpriseAuth('owner')
  @ApiAnswer(200, 'a page of the audit', AUDIT_PAGE)
  @ApiQuery(AUDIT_PAGE_QUERY)
  async audit(@Param('org_id', IdPipe) orgId: string, @Query('page', auditPagePipe()) page = 1) {
    return listView(await this.directory.audit(orgId, checkedAuditPage(page)), auditView);
  }
}

/** The guard's verdict as the directory reads it: the admin token is above every role. */
function callerOf(req: Request): OrgCaller {
  const caller = req.enterpriseCaller;
  if (!caller || caller.kind === 'admin') return { actor: { kind: 'admin' }, role: null };
  return { actor: { kind: 'key', keyId: caller.keyId }, role: caller.role };
}
