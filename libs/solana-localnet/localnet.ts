import { randomBytes } from 'node:crypto';
import { Keypair, NonceAccount, PublicKey, SystemProgram } from '@solana/web3.js';
import type { LiteSVM } from 'litesvm';
import { decodeEscrowAccount, type EscrowAccount } from '../escrow';
import { ensureTokenAccount, MAINNET_USDC_MINT, mintTokens, tokenBalance, writeMint } from './chain-helpers';
import { nonceAccountData } from './durable-nonce';
import { LocalChain, type LatestBlockhash, type SentTransaction } from './local-chain';
import { startRpcServers, type RpcEndpoints } from './localnet-server';
import { rpcMethods } from './rpc-methods';
import { serveSubscriptions } from './websocket-subscriptions';

/** Mainnet-beta's genesis hash: the x402 client accepts only real cluster ids, so the localnet stands in for mainnet. */
export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

export type AddressLike = PublicKey | string;

export interface LocalnetOptions {
  /** HTTP JSON-RPC port (the websocket takes the next one); 0, the default, picks free ports. */
  port?: number;
  host?: '127.0.0.1';
  /** What getGenesisHash answers; defaults to mainnet-beta's. */
  genesisHash?: string;
  /** Emulates the escrow program at this address (README.md, "Escrow program emulation"). */
  escrowProgramId?: AddressLike;
}

function toPublicKey(address: AddressLike): PublicKey {
  return typeof address === 'string' ? new PublicKey(address) : address;
}

/**
 * A LiteSVM chain behind a Solana JSON-RPC server (HTTP at `url`, subscriptions at `wsUrl`), with
 * helpers to set up wallets and move the clock. The blockhash changes only through
 * `expireBlockhash()` (or `advanceSlots()` past its 150-block lifetime), so pre-signed payments stay valid.
 */
export class Localnet {
  private usdc: PublicKey | null = null;
  // The localnet's own mint authority; tests fund wallets through the helpers instead.
  private readonly mintAuthority = Keypair.generate();
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly chain: LocalChain,
    private readonly endpoints: RpcEndpoints,
  ) {}

  static async start(options: LocalnetOptions = {}): Promise<Localnet> {
    const chain = new LocalChain({ escrowProgramId: options.escrowProgramId === undefined ? undefined : toPublicKey(options.escrowProgramId) });
    let subscriptionId = 0;
    const endpoints = await startRpcServers({
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      handle: rpcMethods(chain, { genesisHash: options.genesisHash ?? MAINNET_GENESIS_HASH }),
      serveSocket: (socket) => serveSubscriptions(socket, chain, () => (subscriptionId += 1)),
    });
    return new Localnet(chain, endpoints);
  }

  get url(): string {
    return this.endpoints.url;
  }

  get wsUrl(): string {
    return this.endpoints.wsUrl;
  }

  /**
   * The LiteSVM instance. Prefer the RPC and the helpers: a transaction sent here directly is not
   * recorded for getSignatureStatuses, and leaves the FPU state jit-fpu-guard.ts describes unrepaired.
   */
  get svm(): LiteSVM {
    return this.chain.svm;
  }

  /** The USDC mint created by createUsdcMint. */
  get usdcMint(): PublicKey {
    if (!this.usdc) throw new Error('no USDC mint yet: call createUsdcMint() first');
    return this.usdc;
  }

  /** Puts a real SPL Token mint at `mintAddress` (mainnet USDC's by default), with no supply yet. */
  createUsdcMint(mintAddress: AddressLike = MAINNET_USDC_MINT, decimals = 6): PublicKey {
    const mint = toPublicKey(mintAddress);
    writeMint(this.chain.svm, mint, this.mintAuthority.publicKey, decimals);
    this.usdc = mint;
    return mint;
  }

  /** Credits lamports; returns a signature that getSignatureStatuses reports as finalized. */
  airdrop(wallet: AddressLike, lamports: number | bigint): string {
    return this.chain.airdrop(toPublicKey(wallet), BigInt(lamports));
  }

  /** Credits USDC (atomic units) to the owner's associated token account, creating it if absent; returns that account. */
  fundUsdc(owner: AddressLike, atomicAmount: bigint): PublicKey {
    return mintTokens(this.chain.svm, this.usdcMint, toPublicKey(owner), atomicAmount);
  }

  /** The owner's (empty, if new) USDC associated token account. */
  createTokenAccount(owner: AddressLike): PublicKey {
    return ensureTokenAccount(this.chain.svm, this.usdcMint, toPublicKey(owner));
  }

  /** The owner's USDC balance in atomic units; 0n without a token account. */
  usdcBalance(owner: AddressLike): bigint {
    return tokenBalance(this.chain.svm, this.usdcMint, toPublicKey(owner));
  }

  solBalance(wallet: AddressLike): bigint {
    return this.chain.svm.getBalance(toPublicKey(wallet)) ?? 0n;
  }

  /** The current slot, which is also the block height here (every slot is one block). */
  get slot(): number {
    return this.chain.slot;
  }

  advanceSlots(count = 1): void {
    this.chain.advanceSlots(count);
  }

  /** Moves to a new blockhash: transactions signed with the old one fail and isBlockhashValid says false. */
  expireBlockhash(): void {
    this.chain.expireBlockhash();
  }

  latestBlockhash(): LatestBlockhash {
    return this.chain.latestBlockhash();
  }

  /**
   * Places an initialised nonce account owned by `authority`, rent-exempt, holding a fresh random
   * nonce (written straight into the account, as token balances are); returns its address.
   * Transactions that open with AdvanceNonceAccount on it and name its nonce as their blockhash land
   * (durable-nonce.ts), and advance it.
   */
  createNonceAccount(authority: AddressLike): PublicKey {
    const address = Keypair.generate().publicKey;
    const data = nonceAccountData(toPublicKey(authority), randomBytes(32));
    const lamports = Number(this.chain.svm.minimumBalanceForRentExemption(BigInt(data.length)));
    this.chain.svm.setAccount(address, { lamports, data, owner: SystemProgram.programId, executable: false, rentEpoch: 0 });
    return address;
  }

  /** The durable nonce a nonce account holds now (base58: what a transaction names as its blockhash). */
  nonceOf(address: AddressLike): string {
    const account = this.chain.svm.getAccount(toPublicKey(address));
    if (!account) throw new Error(`no nonce account at ${toPublicKey(address).toBase58()}`);
    return NonceAccount.fromAccountData(Buffer.from(account.data)).nonce;
  }

  /** The emulated escrow program's address, or null when the localnet runs without it. */
  get escrowProgramId(): PublicKey | null {
    return this.chain.escrow?.programId ?? null;
  }

  /** The escrow account at `address` decoded, or null when there is none (never created, or closed by a claim or refund). */
  escrowAccount(address: AddressLike): EscrowAccount | null {
    const programId = this.escrowProgramId;
    const info = this.chain.svm.getAccount(toPublicKey(address));
    if (!programId || !info || !info.owner.equals(programId)) return null;
    return decodeEscrowAccount(info.data);
  }

  /** Transactions sent over RPC that landed, in order (failed ones included, with their `err`). */
  sentTransactions(): SentTransaction[] {
    return this.chain.sentTransactions();
  }

  /** Stops the HTTP and websocket servers and drops their connections; later calls wait for the same close. */
  close(): Promise<void> {
    this.closing ??= this.endpoints.close();
    return this.closing;
  }
}

export function startLocalnet(options?: LocalnetOptions): Promise<Localnet> {
  return Localnet.start(options);
}
