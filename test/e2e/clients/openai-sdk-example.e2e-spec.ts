import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import type { RunningGateway } from '../../../src/gateway';
import { chatBody, quote, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { pgliteStorage } from '../../support/storage-env';

const ROOT = join(__dirname, '..', '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'openai-sdk-paying.mjs');

describe("the README's example: the openai SDK paying with @x402/fetch", () => {
  let world: PaidWorld;
  let gateway: RunningGateway;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, (await pgliteStorage()).env);
  });
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  it('is in the README as it is in examples/', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`\`\`\`js\n${readFileSync(EXAMPLE, 'utf8')}\`\`\`\n`);
  });

  it('run as a newcomer runs it, pays the quote from a wallet with no SOL and prints the answer', async () => {
    const wallet = Keypair.generate();
    world.localnet.fundUsdc(wallet.publicKey, 1_000_000n);
    const { amount } = await quote(gateway, chatBody());
    const before = world.localnet.usdcBalance(world.recipient.publicKey);

    const { stdout } = await promisify(execFile)(process.execPath, [EXAMPLE], {
      cwd: ROOT,
      timeout: 30_000,
      env: {
        PATH: process.env.PATH,
        GATEWAY_URL: gateway.url,
        GW_SOLANA_RPC_URL: world.localnet.url,
        GW_USDC_MINT: world.mint.toBase58(),
        PAYER_SECRET_KEY: bs58.encode(wallet.secretKey),
      },
    });

    expect(stdout).toBe('fake openai reply to: Say hello\n');
    expect(world.localnet.usdcBalance(world.recipient.publicKey) - before).toBe(amount);
    expect(world.localnet.usdcBalance(wallet.publicKey)).toBe(1_000_000n - amount);
  });
});
