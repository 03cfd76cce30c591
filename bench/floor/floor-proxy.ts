/**
 * The floor of the bench (docs/performance.md): NestJS on Express with one controller that proxies
 * POST /v1/chat/completions to the fake provider with an undici pool, and nothing else: no edge,
 * no logging, no metrics, no validation, no payment. The gateway's free path is compared with
 * what this costs per request, in the same run. PORT and UPSTREAM (the fake's origin) from the env.
 */
import 'reflect-metadata';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Pool } from 'undici';

const upstream = new Pool(process.env.UPSTREAM as string, { connections: 64, keepAliveTimeout: 30_000 });

@Controller()
class ProxyController {
  @Post('v1/chat/completions')
  @HttpCode(200)
  async chat(@Body() body: unknown): Promise<unknown> {
    const answer = await upstream.request({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
      body: JSON.stringify(body),
    });
    return answer.body.json();
  }
}

@Module({ controllers: [ProxyController] })
class FloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(FloorModule, { logger: false });
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}

void main();
