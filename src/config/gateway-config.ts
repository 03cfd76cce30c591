import type { ProviderName } from '../modules/providers/domain/provider-name';
import type { Catalog } from '../modules/routing/domain/catalog';
import type { ServiceEntry } from '../modules/tools/domain/service-entry';
import type { Network } from '../../libs/x402';
import type { Secret } from './secret';

export type GatewayEnv = 'development' | 'production';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'json' | 'pretty';

export type StorageConfig = { kind: 'postgres'; url: Secret } | { kind: 'pglite'; dataDir: string } | { kind: 'none' };

export interface HttpConfig {
  host: string;
  port: number;
  /** Origins allowed by CORS (spec 5.8): the development defaults plus GW_CORS_ORIGINS, or only the latter in production. */
  corsOrigins: readonly string[];
  maxConcurrentRequests: number;
  /** Bounds a request until its response starts, and a paid request until its payment is broadcast. */
  requestTimeoutMs: number;
  /** The longest a started stream may run (GW_STREAM_MAX_SECS). */
  streamMaxMs: number;
  /** Silence after which an open stream gets a `: keep-alive` comment (GW_SSE_KEEPALIVE_MS). */
  sseKeepAliveMs: number;
  shutdownGraceMs: number;
  /** A request body must arrive within this (GW_BODY_READ_TIMEOUT_SECS); else 408 and the socket is closed. */
  bodyReadTimeoutMs: number;
  /** Bytes of request bodies being read at once, all requests together (GW_MAX_BODY_BYTES_IN_FLIGHT). */
  maxBodyBytesInFlight: number;
  /** Response bytes a client leaves untaken this long get its connection closed (GW_SEND_TIMEOUT_SECS): a stalled write, not a long answer. */
  sendTimeoutMs: number;
  /** Of those, the most one client network's bodies may hold (GW_MAX_BODY_BYTES_IN_FLIGHT_PER_CLIENT); 0 turns the share off. */
  maxBodyBytesInFlightPerClient: number;
  /** Open connections per client network in this process (GW_MAX_CONNECTIONS_PER_CLIENT); 0 turns the cap off. */
  maxConnectionsPerClient: number;
  /** Peers whose PROXY protocol header gives the client address (GW_PROXY_PROTOCOL_CIDRS). */
  proxyProtocolCidrs: readonly string[];
}

/** The windows of the settlement lifecycle (the `GW_` variables in the README). */
export interface SettlementConfig {
  /** How long a broadcast payment is awaited before the answer goes out with its receipt pending. */
  confirmMs: number;
  /** Between two passes of the reconciler over pending receipts. */
  reconcileIntervalMs: number;
  /** How long a paid answer its client left behind is kept for a resend. */
  redeliveryTtlMs: number;
  /** How long a replica holds the reconciler's lease without renewing it. */
  leaseTtlMs: number;
  /** A payment whose blockhash has less life left than this is refused at acceptance. */
  minBlockhashLifeMs: number;
  /** Between two polls of the blockhash tracker. */
  blockhashPollMs: number;
}

/** Bounds on the network fees the gateway pays for sponsored payments (the `GW_SPONSOR_` variables). */
export interface SponsorshipConfig {
  /** Priority fee sponsored per payment, on top of the base fees. */
  maxPriorityLamports: bigint;
  /** Sponsored per window for all payers together; past it quotes stop advertising a fee payer. */
  lamportsPerWindow: bigint;
  /** Sponsored per window for one payer wallet, and for one client address. */
  walletLamportsPerWindow: bigint;
  /** Quotes below this (atomic USDC) are not sponsored. */
  minQuoteAtomic: bigint;
  /** The window the hourly bounds count in (GW_SPONSOR_WINDOW_SECS, an hour; shortened by tests). */
  windowMs: number;
}

export interface SolanaConfig {
  rpcUrl: string;
  /** CAIP-2 id advertised in 402 challenges and required in payments. */
  network: Network;
  usdcMint: string;
  recipientWallet: string;
  /** 64-byte secret keys, primary first. */
  feePayerKeys: readonly Secret<Uint8Array>[];
  escrowProgramId: string | null;
  /** GW_ESCROW_PROVIDER_KEY: the escrow provider's 64-byte secret key (it signs claims); escrow is on only with the program id too. */
  escrowProviderKey: Secret<Uint8Array> | null;
}

export interface ProviderEndpoint {
  apiKey: Secret | null;
  baseUrl: string;
}

/** Upstream timeouts and the circuit breaker (docs/decisions.md, "Failure policy"; defaults 10 s, 60 s, 60 s; 50 % of at least 5 in 60 s, open 30 s). */
export interface UpstreamConfig {
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  breaker: { windowMs: number; minRequests: number; failureRatio: number; openMs: number };
}

export interface LimitsConfig {
  rateLimitMax: number;
  /** Route limits per minute by route name, where configured (`@RouteRateLimit` holds the defaults). */
  routeRateLimits: Readonly<Record<string, number>>;
  freeTierRateLimit: number;
  freeTierGlobalRpm: number;
  /** Request body bytes of unpaid work per 60 s per client network (GW_UNPAID_BODY_BYTES_PER_MIN); 0 turns the budget off. */
  unpaidBodyBytesPerMin: number;
  cacheTtlSecs: number;
}

/** The paid tools, the service registry and the SSRF guard (the `GW_SEARCH_`, `GW_PRICE_`, `GW_SERVICES_FILE`, `GW_SSRF_` variables). */
export interface ToolsConfig {
  /** Tavily-format search API origin (GW_SEARCH_BASE_URL); the adapter appends `/search`. */
  searchBaseUrl: string;
  /** GW_SEARCH_API_KEY; null turns the search tool off (503). */
  searchApiKey: Secret | null;
  /** Jupiter-format price API origin (GW_PRICE_BASE_URL); the adapter appends `/price/v3`. */
  priceBaseUrl: string;
  /** Bounds each call to a tool upstream or a proxied service (GW_TOOL_TIMEOUT_SECS). */
  timeoutMs: number;
  /** The registry file's entries: catalog/services.json, or GW_SERVICES_FILE. */
  services: readonly ServiceEntry[];
  /** Test-only: CIDRs the SSRF guard lets through (GW_SSRF_ALLOW_CIDRS; refused in production). */
  ssrfAllowCidrs: readonly string[];
  /** Test-only: PEM of an extra CA trusted for external services (GW_EXTRA_CA_FILE; refused in production). */
  extraCaPem: string | null;
}

/** The escrow scheme's claim queue (the `GW_CLAIM_` variables). */
export interface EscrowConfig {
  /** The first retry of a failed claim waits this long; each further one twice as long, up to 5 minutes. */
  claimRetryBaseMs: number;
  /** The claim breaker's window (spec 3.2: 5 minutes) and how long it stays open (1 minute). */
  breakerWindowMs: number;
  breakerResetMs: number;
  /** Between two passes of the claim processor over due claims. */
  claimIntervalMs: number;
  /** Escrow is offered and accepted only for quotes of at least this (GW_ESCROW_MIN_ATOMIC; by default what one claim's fee costs at GW_SOL_PRICE_USDC, times 21). */
  minQuoteAtomic: bigint;
  /** Claim fees counted in the sponsorship window past which new escrow offers and deposits stop (GW_CLAIM_LAMPORTS_PER_HOUR). */
  claimLamportsPerWindow: bigint;
}

/** Channels (the `GW_CHANNEL_` variables; docs/decisions.md, "Channels"). */
export interface ChannelConfig {
  /** GW_CHANNEL_CUSTODY_KEY: the custody wallet's 64-byte secret key; with a database and REDIS_URL it turns channels on. */
  custodyKey: Secret<Uint8Array> | null;
  /** The smallest funding an open accepts (GW_CHANNEL_MIN_DEPOSIT_ATOMIC). */
  minDepositAtomic: bigint;
  /** A voucher's expiry slot must be at least this far ahead of the current slot (GW_CHANNEL_MIN_EXPIRY_SLOTS). */
  minExpirySlots: bigint;
  /** A channel with no draw for this long is closed by the gateway (GW_CHANNEL_IDLE_CLOSE_DAYS). */
  idleCloseMs: number;
  /** Between two passes of the close worker and the idle sweep (GW_CHANNEL_WORK_INTERVAL_MS). */
  workIntervalMs: number;
}

/** The A2A surface (the `GW_A2A_` variables). */
export interface A2AConfig {
  /** A task lives this long from its last state change (spec 8: 10 minutes). */
  taskTtlMs: number;
  /** The longest a paid task's provider call may run (spec 8: 540 s). */
  serveMs: number;
  /** tasks/get calls per minute per client network. */
  getRateLimit: number;
}

/**
 * The validated configuration (the variables the README lists). An abstract class so that it can be
 * the DI token; `loadConfig` produces the value from the environment.
 */
export abstract class GatewayConfig {
  abstract readonly env: GatewayEnv;
  abstract readonly logLevel: LogLevel;
  /** GW_LOG_FORMAT; null lets the logger choose by environment and terminal (src/logging/log-format.ts). */
  abstract readonly logFormat: LogFormat | null;
  abstract readonly http: HttpConfig;
  abstract readonly adminToken: Secret | null;
  abstract readonly dataDir: string;
  abstract readonly storage: StorageConfig;
  abstract readonly redisUrl: Secret | null;
  abstract readonly solana: SolanaConfig;
  abstract readonly providers: Readonly<Record<ProviderName, ProviderEndpoint>>;
  abstract readonly limits: LimitsConfig;
  abstract readonly upstream: UpstreamConfig;
  abstract readonly settlement: SettlementConfig;
  abstract readonly sponsorship: SponsorshipConfig;
  /** Key of the HMAC that signs `x-gw-session` tokens (GW_SESSION_SECRET, or random per process). */
  abstract readonly sessionSecret: Secret<Uint8Array>;
  /** Models, aliases and profiles: catalog/catalog.json, or GW_CATALOG_FILE. */
  abstract readonly catalog: Catalog;
  abstract readonly tools: ToolsConfig;
  abstract readonly escrow: EscrowConfig;
  abstract readonly a2a: A2AConfig;
  abstract readonly channels: ChannelConfig;
}
