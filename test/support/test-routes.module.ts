import { createHash } from 'node:crypto';
import { Body, Controller, Get, HttpCode, Module, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AdminOnly } from '../../src/http/admin.guard';
import { ReqContext, type RequestContext } from '../../src/http/request-context';

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
  @HttpCode(200)
  echo(@Req() req: Request, @Body() body: unknown): { sha256: string | null; body: unknown } {
    observed.echoed += 1;
    return { sha256: req.rawBody ? createHash('sha256').update(req.rawBody).digest('hex') : null, body };
  }

  @Post('small')
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
}

@Module({ controllers: [TestRoutesController] })
export class TestRoutesModule {}

/** Limits the test suites set for their routes. */
export const TEST_BODY_LIMITS = { '/test/small': 1024 };
