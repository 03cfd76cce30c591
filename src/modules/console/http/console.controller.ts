import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { routeNotFound } from '../../../http/error-response';
import { ApiErrors } from '../../../http/openapi/api-errors';
import { requestPath } from '../../../http/request-context';
import { ConsoleBundle } from './console-bundle';
import { CONSOLE_CSP } from './console-csp';

const TEXT = { schema: { type: 'string' } } as const;

/** The web console (docs/decisions.md, "Console"): a page and its two assets, all from the built bundle; it calls the public API only. */
@Controller('console')
@ApiErrors('console.not_built')
export class ConsoleController {
  constructor(private readonly bundle: ConsoleBundle) {}

  @Get()
  @ApiResponse({ status: 200, description: 'the console page', content: { 'text/html': TEXT } })
  async page(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.send(req, res, 'index.html');
  }

  @Get(':asset')
  @ApiResponse({ status: 200, description: "the console's script or style sheet", content: { 'text/javascript': TEXT, 'text/css': TEXT } })
  @ApiErrors('route.not_found')
  async asset(@Req() req: Request, @Res() res: Response, @Param('asset') asset: string): Promise<void> {
    await this.send(req, res, asset);
  }

  private async send(req: Request, res: Response, name: string): Promise<void> {
    const file = await this.bundle.file(name);
    if (!file) throw routeNotFound(req.method, requestPath(req));
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    // Revalidated on each load: a rebuilt bundle shows at once.
    res.setHeader('Cache-Control', 'no-cache');
    res.type(file.type).send(file.body);
  }
}
