import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import type { RunningGateway } from '../../src/gateway';
import type { PaidWorld } from './paid-gateway';

export const ROOT = join(__dirname, '..', '..');
export const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** What a newcomer's run of an example moved: what it printed, what the recipient got, what its wallet paid. */
export interface ExampleRun {
  stdout: string;
  received: bigint;
  spent: bigint;
}

const WALLET_USDC = 1_000_000n;

/**
 * Runs `examples/<name>` as a newcomer runs it: a fresh Node with only PATH and the variables the
 * example documents, paying from a new wallet that holds USDC and no SOL (the gateway sponsors the fee).
 */
export async function runPayingExample(world: PaidWorld, gateway: RunningGateway, name: string): Promise<ExampleRun> {
  const wallet = Keypair.generate();
  world.localnet.fundUsdc(wallet.publicKey, WALLET_USDC);
  const before = world.localnet.usdcBalance(world.recipient.publicKey);

  const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'examples', name)], {
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

  return { stdout, received: world.localnet.usdcBalance(world.recipient.publicKey) - before, spent: WALLET_USDC - world.localnet.usdcBalance(wallet.publicKey) };
}

/** The example's text, as the README must quote it when it shows it whole. */
export function exampleText(name: string): string {
  return readFileSync(join(ROOT, 'examples', name), 'utf8');
}
