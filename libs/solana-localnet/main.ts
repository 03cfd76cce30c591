import { MAINNET_USDC_MINT } from './chain-helpers';
import { startLocalnet } from './localnet';

const DEFAULT_PORT = 8899;

/**
 * `npm run localnet`: the local chain on PORT (websocket on PORT+1) with USDC at GW_USDC_MINT and,
 * when GW_ESCROW_PROGRAM_ID is set, the escrow program emulated at that address; until SIGINT/SIGTERM.
 */
async function main(): Promise<void> {
  const port = process.env.PORT ? Number(process.env.PORT) : DEFAULT_PORT;
  if (!Number.isInteger(port) || port <= 0 || port >= 65535) throw new Error(`PORT must be a port number, got ${process.env.PORT}`);
  const escrowProgramId = process.env.GW_ESCROW_PROGRAM_ID || undefined;
  const localnet = await startLocalnet({ port, escrowProgramId });
  const mint = localnet.createUsdcMint(process.env.GW_USDC_MINT || MAINNET_USDC_MINT);
  const escrow = escrowProgramId ? `, escrow program ${escrowProgramId} (emulated)` : '';
  process.stdout.write(`Solana localnet RPC ${localnet.url} (websocket ${localnet.wsUrl}), USDC mint ${mint.toBase58()}${escrow}\n`);
  const stop = (): void => void localnet.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`localnet failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
