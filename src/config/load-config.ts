import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import defaultCatalog from '../../catalog/catalog.json';
import { parseUsdc } from '../modules/billing/domain/atomic-usdc';
import { DEFAULT_SOL_PRICE_ATOMIC, escrowMinimumAtomic } from '../modules/payments/domain/escrow-minimum';
import { PROVIDER_NAMES, type ProviderName } from '../modules/providers/domain/provider-name';
import type { Catalog } from '../modules/routing/domain/catalog';
import { CatalogError, parseCatalog } from '../modules/routing/domain/parse-catalog';
import { isNetwork, type Network } from '../../libs/x402';
import { ConfigError, EnvReader } from './env-reader';
import type { GatewayConfig, GatewayEnv, LogFormat, LogLevel, ProviderEndpoint, StorageConfig } from './gateway-config';
import { ensureLocalRecipientWallet } from './local-recipient-wallet';
import { Secret } from './secret';
import { readToolsConfig } from './tools-config';

export const SOLANA_MAINNET_NETWORK = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
export const SOLANA_MAINNET_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOLANA_MAINNET_RPC_URL = 'https://api.mainnet-beta.solana.com';

/** Spec 5.8: origins allowed outside production. */
export const DEVELOPMENT_CORS_ORIGINS = ['http://localhost:3000', 'http://localhost:8080', 'http://127.0.0.1:3000'];

/** Each base URL includes the API version; adapters append the resource path. */
const PROVIDER_DEFAULTS: Record<ProviderName, { keyVar: string; baseUrl: string }> = {
  openai: { keyVar: 'OPENAI_API_KEY', baseUrl: 'https://api.openai.com/v1' },
  anthropic: { keyVar: 'ANTHROPIC_API_KEY', baseUrl: 'https://api.anthropic.com/v1' },
  google: { keyVar: 'GOOGLE_API_KEY', baseUrl: 'https://generativelanguage.googleapis.com/v1beta' },
  xai: { keyVar: 'XAI_API_KEY', baseUrl: 'https://api.x.ai/v1' },
  deepseek: { keyVar: 'DEEPSEEK_API_KEY', baseUrl: 'https://api.deepseek.com/v1' },
  nvidia: { keyVar: 'NVIDIA_API_KEY', baseUrl: 'https://integrate.api.nvidia.com/v1' },
};

const MIN_ADMIN_TOKEN_LENGTH = 16;

export interface ConfigNotice {
  level: 'info' | 'warn';
  message: string;
}

export interface LoadedConfig {
  config: GatewayConfig;
  /** Things worth logging once the logger exists (defaults applied, local wallet created). */
  notices: ConfigNotice[];
}

/**
 * Builds the validated configuration from the environment. Throws ConfigError on the first bad
 * value. Its only side effect: in development without GW_RECIPIENT_WALLET it creates (or reuses)
 * a local recipient wallet under GW_DATA_DIR.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): LoadedConfig {
  const read = new EnvReader(env);
  const notices: ConfigNotice[] = [];
  const gatewayEnv = read.oneOf<GatewayEnv>('GW_ENV', ['development', 'production'], 'development');
  const dataDir = resolve(read.string('GW_DATA_DIR', './data'));

  const adminToken = read.secret('GW_ADMIN_TOKEN');
  if (adminToken && adminToken.reveal().length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new ConfigError(`GW_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (value not shown)`);
  }

  const corsOrigins = read.origins('GW_CORS_ORIGINS');
  const freeTierLimit = (name: string, fallback: number): number => {
    const value = read.integer(name, fallback, { min: 0 });
    if (value !== 0) return value;
    notices.push({ level: 'warn', message: `${name}=0 is rejected (spec section 8); using the default ${fallback}` });
    return fallback;
  };

  const config: GatewayConfig = {
    env: gatewayEnv,
    logLevel: read.oneOf<LogLevel>('GW_LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    logFormat: read.raw('GW_LOG_FORMAT') === undefined ? null : read.oneOf<LogFormat>('GW_LOG_FORMAT', ['json', 'pretty'], 'json'),
    http: {
      host: read.string('HOST', '0.0.0.0'),
      port: read.integer('PORT', 8402, { min: 0, max: 65535 }),
      corsOrigins: gatewayEnv === 'production' ? corsOrigins : [...new Set([...DEVELOPMENT_CORS_ORIGINS, ...corsOrigins])],
      maxConcurrentRequests: read.integer('GW_MAX_CONCURRENT_REQUESTS', 256, { min: 1 }),
      requestTimeoutMs: read.integer('GW_REQUEST_TIMEOUT_SECS', 120, { min: 1 }) * 1000,
      streamMaxMs: read.integer('GW_STREAM_MAX_SECS', 600, { min: 1 }) * 1000,
      sseKeepAliveMs: read.integer('GW_SSE_KEEPALIVE_MS', 15_000, { min: 10 }),
      shutdownGraceMs: read.integer('GW_SHUTDOWN_GRACE_SECS', 10, { min: 0 }) * 1000,
      bodyReadTimeoutMs: read.integer('GW_BODY_READ_TIMEOUT_SECS', 10, { min: 1 }) * 1000,
      maxBodyBytesInFlight: read.integer('GW_MAX_BODY_BYTES_IN_FLIGHT', 256 * 1024 * 1024, { min: 1024 }),
      sendTimeoutMs: read.integer('GW_SEND_TIMEOUT_SECS', 30, { min: 1 }) * 1000,
      maxBodyBytesInFlightPerClient: read.integer('GW_MAX_BODY_BYTES_IN_FLIGHT_PER_CLIENT', 32 * 1024 * 1024, { min: 0 }),
      maxConnectionsPerClient: read.integer('GW_MAX_CONNECTIONS_PER_CLIENT', 64, { min: 0 }),
      proxyProtocolCidrs: read.cidrs('GW_PROXY_PROTOCOL_CIDRS'),
    },
    adminToken,
    dataDir,
    storage: readStorage(read, dataDir),
    redisUrl: read.secretUrl('REDIS_URL', ['redis:', 'rediss:']),
    solana: {
      rpcUrl: read.url('GW_SOLANA_RPC_URL', SOLANA_MAINNET_RPC_URL),
      network: readNetwork(read),
      usdcMint: read.address('GW_USDC_MINT') ?? SOLANA_MAINNET_USDC_MINT,
      recipientWallet: readRecipientWallet(read, gatewayEnv, dataDir, notices),
      feePayerKeys: read.secretKeys('GW_FEE_PAYER_KEYS'),
      escrowProgramId: read.address('GW_ESCROW_PROGRAM_ID'),
      escrowProviderKey: readOneKey(read, 'GW_ESCROW_PROVIDER_KEY'),
    },
    providers: readProviders(read),
    limits: {
      rateLimitMax: read.integer('GW_RATE_LIMIT_MAX', 60, { min: 1 }),
      routeRateLimits: { enterprise: read.integer('GW_ENTERPRISE_RATE_LIMIT', 120, { min: 1 }) },
      freeTierRateLimit: freeTierLimit('GW_FREE_TIER_RATE_LIMIT', 5),
      freeTierGlobalRpm: freeTierLimit('GW_FREE_TIER_GLOBAL_RPM', 12),
      unpaidBodyBytesPerMin: read.integer('GW_UNPAID_BODY_BYTES_PER_MIN', 20_000_000, { min: 0 }),
      cacheTtlSecs: read.integer('GW_CACHE_TTL_SECS', 600, { min: 0 }),
    },
    upstream: {
      connectTimeoutMs: read.integer('GW_UPSTREAM_CONNECT_TIMEOUT_MS', 10_000, { min: 1 }),
      firstByteTimeoutMs: read.integer('GW_UPSTREAM_FIRST_BYTE_TIMEOUT_MS', 60_000, { min: 1 }),
      idleTimeoutMs: read.integer('GW_UPSTREAM_IDLE_TIMEOUT_MS', 60_000, { min: 1 }),
      breaker: {
        windowMs: read.integer('GW_BREAKER_WINDOW_SECS', 60, { min: 1 }) * 1000,
        minRequests: read.integer('GW_BREAKER_MIN_REQUESTS', 5, { min: 1 }),
        failureRatio: read.integer('GW_BREAKER_FAILURE_PERCENT', 50, { min: 1, max: 100 }) / 100,
        openMs: read.integer('GW_BREAKER_OPEN_SECS', 30, { min: 1 }) * 1000,
      },
    },
    settlement: {
      confirmMs: read.integer('GW_SETTLEMENT_CONFIRM_SECS', 30, { min: 1 }) * 1000,
      reconcileIntervalMs: read.integer('GW_RECONCILE_INTERVAL_SECS', 15, { min: 1 }) * 1000,
      redeliveryTtlMs: read.integer('GW_REDELIVERY_TTL_SECS', 600, { min: 1 }) * 1000,
      leaseTtlMs: read.integer('GW_LEASE_TTL_SECS', 30, { min: 1 }) * 1000,
      minBlockhashLifeMs: read.integer('GW_MIN_BLOCKHASH_LIFE_SECS', 20, { min: 0, max: 60 }) * 1000,
      blockhashPollMs: read.integer('GW_BLOCKHASH_POLL_MS', 2_000, { min: 50 }),
    },
    sponsorship: {
      maxPriorityLamports: BigInt(read.integer('GW_SPONSOR_MAX_PRIORITY_LAMPORTS', 10_000, { min: 0 })),
      lamportsPerWindow: BigInt(read.integer('GW_SPONSOR_LAMPORTS_PER_HOUR', 100_000_000, { min: 0 })),
      walletLamportsPerWindow: BigInt(read.integer('GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR', 10_000_000, { min: 0 })),
      minQuoteAtomic: BigInt(read.integer('GW_SPONSOR_MIN_ATOMIC', 0, { min: 0 })),
      windowMs: read.integer('GW_SPONSOR_WINDOW_SECS', 3_600, { min: 1 }) * 1000,
    },
    sessionSecret: readSessionSecret(read),
    catalog: readCatalog(read),
    tools: readToolsConfig(read, gatewayEnv),
    escrow: {
      claimRetryBaseMs: read.integer('GW_CLAIM_RETRY_BASE_MS', 1_000, { min: 10 }),
      breakerWindowMs: read.integer('GW_CLAIM_BREAKER_WINDOW_SECS', 300, { min: 1 }) * 1000,
      breakerResetMs: read.integer('GW_CLAIM_BREAKER_RESET_SECS', 60, { min: 1 }) * 1000,
      claimIntervalMs: read.integer('GW_CLAIM_INTERVAL_MS', 1_000, { min: 10 }),
      minQuoteAtomic: readEscrowMinimum(read),
      claimLamportsPerWindow: BigInt(read.integer('GW_CLAIM_LAMPORTS_PER_HOUR', 100_000_000, { min: 0 })),
    },
    a2a: {
      taskTtlMs: read.integer('GW_A2A_TASK_TTL_SECS', 600, { min: 1 }) * 1000,
      serveMs: read.integer('GW_A2A_SERVE_SECS', 540, { min: 1 }) * 1000,
      getRateLimit: read.integer('GW_A2A_GET_RATE_LIMIT', 120, { min: 1 }),
    },
    channels: {
      custodyKey: readOneKey(read, 'GW_CHANNEL_CUSTODY_KEY'),
      minDepositAtomic: BigInt(read.integer('GW_CHANNEL_MIN_DEPOSIT_ATOMIC', 1_000_000, { min: 1 })),
      minExpirySlots: BigInt(read.integer('GW_CHANNEL_MIN_EXPIRY_SLOTS', 50, { min: 0 })),
      idleCloseMs: readDays(read, 'GW_CHANNEL_IDLE_CLOSE_DAYS', 30),
      workIntervalMs: read.integer('GW_CHANNEL_WORK_INTERVAL_MS', 1_000, { min: 10 }),
    },
  };
  return { config, notices };
}

/** GW_ESCROW_MIN_ATOMIC, else the quote whose fee pays one claim at GW_SOL_PRICE_USDC (a decimal with at most 6 places, above 0). */
function readEscrowMinimum(read: EnvReader): bigint {
  const priceText = read.raw('GW_SOL_PRICE_USDC');
  const price = priceText === undefined ? DEFAULT_SOL_PRICE_ATOMIC : parseUsdc(priceText);
  if (price === null || price === 0n) throw new ConfigError(`GW_SOL_PRICE_USDC must be a price in USDC above 0 with at most 6 decimals (got "${priceText}")`);
  const minimum = read.raw('GW_ESCROW_MIN_ATOMIC');
  return minimum === undefined ? escrowMinimumAtomic(price) : BigInt(read.integer('GW_ESCROW_MIN_ATOMIC', 0, { min: 0 }));
}

/** A key of which there is one: the escrow provider (several would make the escrow entry's `pay_to` ambiguous), the channel custody. */
function readOneKey(read: EnvReader, name: string): Secret<Uint8Array> | null {
  const keys = read.secretKeys(name);
  if (keys.length > 1) throw new ConfigError(`${name} holds more than one key; give exactly one (value not shown)`);
  return keys[0] ?? null;
}

/** A number of days, decimals allowed (above 0), in milliseconds. */
function readDays(read: EnvReader, name: string, fallback: number): number {
  const text = read.raw(name);
  if (text === undefined) return fallback * DAY_MS;
  const days = /^\d{1,6}(?:\.\d{1,9})?$/.test(text) ? Number(text) : NaN;
  if (!(days > 0)) throw new ConfigError(`${name} must be a number of days above 0, decimals allowed (got "${text}")`);
  return Math.round(days * DAY_MS);
}

const DAY_MS = 86_400_000;

function readStorage(read: EnvReader, dataDir: string): StorageConfig {
  const mode = read.raw('GW_STORAGE');
  if (mode !== undefined && mode !== 'none') {
    throw new ConfigError(`GW_STORAGE must be "none" or unset (got "${mode}")`);
  }
  const url = read.secretUrl('DATABASE_URL', ['postgres:', 'postgresql:']);
  if (mode === 'none') {
    if (url) throw new ConfigError('GW_STORAGE=none conflicts with DATABASE_URL; unset one of them');
    return { kind: 'none' };
  }
  return url ? { kind: 'postgres', url } : { kind: 'pglite', dataDir };
}

/** GW_SESSION_SECRET (at least 32 characters) so replicas sign alike; unset, a random key per process. */
function readSessionSecret(read: EnvReader): Secret<Uint8Array> {
  const secret = read.secret('GW_SESSION_SECRET');
  if (!secret) return new Secret(new Uint8Array(randomBytes(32)));
  if (secret.reveal().length < 32) throw new ConfigError('GW_SESSION_SECRET must be at least 32 characters (value not shown)');
  return new Secret(new Uint8Array(Buffer.from(secret.reveal(), 'utf8')));
}

/** The repo's catalog, or the operator's own file (GW_CATALOG_FILE); a bad entry stops the start, named. */
function readCatalog(read: EnvReader): Catalog {
  const path = read.raw('GW_CATALOG_FILE');
  let raw: unknown = defaultCatalog;
  if (path !== undefined) {
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new ConfigError(`GW_CATALOG_FILE: cannot read ${path} as JSON (${(err as Error).message})`);
    }
  }
  try {
    return parseCatalog(raw);
  } catch (err) {
    if (err instanceof CatalogError) throw new ConfigError(`${path === undefined ? 'catalog/catalog.json' : `GW_CATALOG_FILE ${path}`}: ${err.message}`);
    throw err;
  }
}

function readNetwork(read: EnvReader): Network {
  const value = read.raw('GW_SOLANA_NETWORK');
  if (value === undefined) return SOLANA_MAINNET_NETWORK;
  if (!/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/.test(value) || !isNetwork(value)) {
    throw new ConfigError(`GW_SOLANA_NETWORK must be a CAIP-2 id like ${SOLANA_MAINNET_NETWORK} (got "${value}")`);
  }
  return value;
}

function readRecipientWallet(read: EnvReader, env: GatewayEnv, dataDir: string, notices: ConfigNotice[]): string {
  const configured = read.address('GW_RECIPIENT_WALLET');
  if (configured) return configured;
  if (env === 'production') {
    throw new ConfigError('GW_RECIPIENT_WALLET is required when GW_ENV=production');
  }
  const local = ensureLocalRecipientWallet(dataDir);
  notices.push({
    level: 'info',
    message: `GW_RECIPIENT_WALLET unset: ${local.created ? 'created' : 'using'} the local recipient wallet ${local.address} (${local.path})`,
  });
  return local.address;
}

function readProviders(read: EnvReader): Record<ProviderName, ProviderEndpoint> {
  const entries = PROVIDER_NAMES.map((name) => {
    const { keyVar, baseUrl } = PROVIDER_DEFAULTS[name];
    const endpoint: ProviderEndpoint = {
      apiKey: read.secret(keyVar),
      baseUrl: read.url(`GW_${name.toUpperCase()}_BASE_URL`, baseUrl),
    };
    return [name, endpoint] as const;
  });
  return Object.fromEntries(entries) as Record<ProviderName, ProviderEndpoint>;
}
