import type { Connection } from '@solana/web3.js';
import { DependencyProbe } from '../../modules/ops/ports/dependency-probe';
import { createRpcConnection } from './rpc-connection';

/** Reachability of the configured Solana JSON-RPC endpoint: one bounded `getVersion` call, never retried. */
export class SolanaRpcProbe extends DependencyProbe {
  private readonly connection: Connection;

  constructor(rpcUrl: string, timeoutMs: number) {
    super();
    this.connection = createRpcConnection(rpcUrl, timeoutMs);
  }

  async ping(): Promise<void> {
    await this.connection.getVersion();
  }
}
