import { startAnthropicFake } from './anthropic-fake';
import type { Fake, FakeOptions } from './fake-server';
import { startGeminiFake } from './gemini-fake';
import { startOpenAiFake } from './openai-fake';

const STARTERS: Record<string, (options: FakeOptions) => Promise<Fake>> = {
  openai: startOpenAiFake,
  anthropic: startAnthropicFake,
  gemini: startGeminiFake,
};

/**
 * One fake configured from FAKE_KIND (openai | anthropic | gemini), PORT (default any free port)
 * and FAKE_REPLY_DELAY_MS (default 0), answering every request with a reply and recording nothing.
 */
export async function startFakeFromEnv(env: NodeJS.ProcessEnv): Promise<Fake> {
  const kind = env.FAKE_KIND ?? '';
  const start = STARTERS[kind];
  if (start === undefined) throw new Error(`FAKE_KIND must be one of ${Object.keys(STARTERS).join(', ')}, not '${kind}'`);
  return start({ port: whole(env, 'PORT'), record: false, default: { kind: 'reply', firstByteDelayMs: whole(env, 'FAKE_REPLY_DELAY_MS') } });
}

function whole(env: NodeJS.ProcessEnv, name: string): number {
  const value = Number(env[name] ?? 0);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not '${env[name]}'`);
  return value;
}
