import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, LAMPORTS_PER_SOL, type PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { startLocalnet, type Localnet } from '../libs/solana-localnet';
import { loadConfig } from '../src/config/load-config';
import type { GatewayConfig } from '../src/config/gateway-config';
import { startGateway, type RunningGateway } from '../src/gateway';
import type { Fake } from '../test/fakes/fake-server';
import { startOpenAiFake } from '../test/fakes/openai-fake';

/** What both demos run on: the local chain with USDC, a fake OpenAI-compatible provider and the gateway, all on 127.0.0.1. */
export interface DemoWorld {
  localnet: Localnet;
  fake: Fake;
  mint: PublicKey;
  /** The gateway's `pay_to` for `exact`. */
  recipient: Keypair;
  config: GatewayConfig;
  gateway: RunningGateway;
  close(): Promise<void>;
}

/** `env` adds to the gateway's environment; `escrowProgramId` makes the chain emulate the escrow program; `before` readies the chain before the gateway starts. */
export async function startDemoWorld(
  options: { escrowProgramId?: PublicKey; env?: (world: Pick<DemoWorld, 'localnet' | 'mint'>) => Record<string, string>; before?: (world: Pick<DemoWorld, 'localnet' | 'mint'>) => void } = {},
): Promise<DemoWorld> {
  const localnet = await startLocalnet({ escrowProgramId: options.escrowProgramId });
  const fake = await startOpenAiFake();
  const mint = localnet.createUsdcMint();
  const [recipient, feePayer] = [Keypair.generate(), Keypair.generate()];
  localnet.createTokenAccount(recipient.publicKey);
  localnet.airdrop(feePayer.publicKey, LAMPORTS_PER_SOL);
  options.before?.({ localnet, mint });
  const { config } = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    GW_LOG_LEVEL: 'silent',
    GW_DATA_DIR: mkdtempSync(join(tmpdir(), 'gw-demo-')),
    GW_SOLANA_RPC_URL: localnet.url,
    GW_RECIPIENT_WALLET: recipient.publicKey.toBase58(),
    GW_FEE_PAYER_KEYS: bs58.encode(feePayer.secretKey),
    OPENAI_API_KEY: 'demo-key',
    GW_OPENAI_BASE_URL: fake.url,
    ...options.env?.({ localnet, mint }),
  });
  const gateway = await startGateway(config);
  return {
    localnet,
    fake,
    mint,
    recipient,
    config,
    gateway,
    close: async () => {
      await gateway.close();
      await Promise.all([fake.close(), localnet.close()]);
    },
  };
}
