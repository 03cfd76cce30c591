import { createHash, randomBytes } from 'node:crypto';
import { Body, Controller, Get, HttpCode, Module, Post, Query, Req, Res } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Min, ValidateNested } from 'class-validator';
import type { Request, Response } from 'express';
import { AdminOnly } from '../../src/http/admin.guard';
import { AGENT_BODY_LIMIT, BodyLimit, CHAT_BODY_LIMIT, SMALL_BODY_LIMIT, type BodyBound } from '../../src/http/body-limits';
import { EnterpriseAuth, type EnterpriseCaller } from '../../src/http/enterprise-auth.guard';
import { ORG_ROLES, type OrgRole } from '../../src/modules/orgs/domain/org-role';
import { OrgApiKeys, type OrgKeyHolder } from '../../src/modules/orgs/ports/org-api-keys';
import { ReqContext, type RequestContext } from '../../src/http/request-context';

/** The body limit of /test/small, small enough to pass in a test. */
const TEST_SMALL_BODY_LIMIT: BodyBound = { bytes: 1024, values: 100 };
/** /test/teams: a megabyte of any number of values, so the DTO pipe's own bounds can be shown on bodies that reach it. */
const TEST_TEAMS_BODY_LIMIT: BodyBound = { bytes: AGENT_BODY_LIMIT.bytes, values: 1_000_000 };

/** What the test routes saw, for assertions about cancellation. */
export const observed: { abortReasons: unknown[]; echoed: number } = { abortReasons: [], echoed: 0 };

/** Requests parked on /test/hold until the test releases them. */
const held: Array<() => void> = [];
export function heldCount(): number {
  return held.length;
}
export function releaseHeld(): void {
  for (const release of held.splice(0)) release();
}

function waitForAbort(ctx: RequestContext, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    ctx.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      observed.abortReasons.push(ctx.signal.reason);
      resolve();
    });
  });
}

/** A DTO as the REST routes declare them, nested to show where a problem is reported. */
class TestMember {
  @IsString()
  @Length(32, 44)
  wallet_address!: string;

  @IsIn(ORG_ROLES)
  role!: OrgRole;
}

class TestTeam {
  @IsString()
  @Length(1, 128)
  name!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  seats?: number;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => TestMember)
  members?: TestMember[];
}

/** Org API keys the test routes know, by the SHA-256 of the key. */
const testKeys = new Map<string, OrgKeyHolder>();

/** A fresh `gwk_` key for `orgId` with `role`, known to the test routes until `forgetTestOrgKeys`. */
export function testOrgKey(orgId: string, role: OrgRole): string {
  const key = `gwk_${randomBytes(32).toString('base64url')}`;
  testKeys.set(createHash('sha256').update(key).digest('hex'), { keyId: `key-${testKeys.size + 1}`, orgId, role });
  return key;
}

export function forgetTestOrgKeys(): void {
  testKeys.clear();
}

class TestOrgApiKeys extends OrgApiKeys {
  findActive(keyHash: Buffer): Promise<OrgKeyHolder | null> {
    return Promise.resolve(testKeys.get(keyHash.toString('hex')) ?? null);
  }
}

/** Routes that exist only in the test module, to exercise the edge. */
@Controller('test')
class TestRoutesController {
  @Get('slow')
  async slow(@ReqContext() ctx: RequestContext, @Query('ms') ms = '5000'): Promise<{ done: true }> {
    await waitForAbort(ctx, Number(ms));
    return { done: true };
  }

  /** An SSE response that sends one event, then keeps the stream open until cancelled. */
  @Get('stream')
  async stream(@ReqContext() ctx: RequestContext, @Res() res: Response): Promise<void> {
    res.setHeader('Content-Type', 'text/event-stream');
    res.flushHeaders();
    res.write('data: {"chunk":1}\n\n');
    await waitForAbort(ctx, 60_000);
  }

  @Get('hold')
  async hold(): Promise<{ released: true }> {
    await new Promise<void>((resolve) => held.push(resolve));
    return { released: true };
  }

  @Post('echo')
  @BodyLimit(CHAT_BODY_LIMIT)
  @HttpCode(200)
  echo(@Req() req: Request, @Body() body: unknown): { sha256: string | null; body: unknown } {
    observed.echoed += 1;
    return { sha256: req.rawBody ? createHash('sha256').update(req.rawBody).digest('hex') : null, body };
  }

  @Post('small')
  @BodyLimit(TEST_SMALL_BODY_LIMIT)
  @HttpCode(200)
  small(@Body() body: unknown): { body: unknown } {
    return { body };
  }

  @Get('identity')
  identity(@ReqContext() ctx: RequestContext): { client: string } {
    return { client: ctx.clientAddress };
  }

  @Get('boom')
  boom(): never {
    throw new Error('database password is hunter2 at /srv/internal/secret.ts:42');
  }

  @Get('admin/hidden')
  @AdminOnly('hide')
  adminHidden(): { ok: true } {
    return { ok: true };
  }

  @Get('admin/unavailable')
  @AdminOnly('unavailable')
  adminUnavailable(): { ok: true } {
    return { ok: true };
  }

  @Post('teams')
  @BodyLimit(TEST_TEAMS_BODY_LIMIT)
  @HttpCode(201)
  team(@Body() team: TestTeam): { isTeam: boolean; team: TestTeam } {
    return { isTeam: team instanceof TestTeam, team };
  }

  @Get('orgs/:org_id/reads')
  @EnterpriseAuth('member')
  orgRead(@Req() req: Request): { caller: EnterpriseCaller | undefined } {
    return { caller: req.enterpriseCaller };
  }

  @Post('orgs/:org_id/manage')
  @BodyLimit(SMALL_BODY_LIMIT)
  @HttpCode(200)
  @EnterpriseAuth('admin')
  orgManage(@Req() req: Request): { caller: EnterpriseCaller | undefined } {
    return { caller: req.enterpriseCaller };
  }
}

@Module({ controllers: [TestRoutesController], providers: [{ provide: OrgApiKeys, useClass: TestOrgApiKeys }] })
export class TestRoutesModule {}
