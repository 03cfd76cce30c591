import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { ConfigError } from './env-reader';
import { DEVELOPMENT_CORS_ORIGINS, loadConfig, SOLANA_MAINNET_NETWORK, SOLANA_MAINNET_USDC_MINT } from './load-config';

const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const dataDir = (): string => mkdtempSync(join(tmpdir(), 'gw-config-'));
const base = (): Record<string, string> => ({ GW_DATA_DIR: dataDir(), GW_RECIPIENT_WALLET: WALLET });

function configError(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const { config, notices } = loadConfig(base());
    expect(config.env).toBe('development');
    expect(config.http).toEqual({
      host: '0.0.0.0',
      port: 8402,
      corsOrigins: DEVELOPMENT_CORS_ORIGINS,
      maxConcurrentRequests: 256,
      requestTimeoutMs: 120_000,
      streamMaxMs: 600_000,
      sseKeepAliveMs: 15_000,
      shutdownGraceMs: 10_000,
      bodyReadTimeoutMs: 10_000,
      maxBodyBytesInFlight: 268_435_456,
      sendTimeoutMs: 30_000,
      maxBodyBytesInFlightPerClient: 33_554_432,
      maxConnectionsPerClient: 64,
      proxyProtocolCidrs: [],
    });
    expect(config.settlement).toEqual({ confirmMs: 30_000, reconcileIntervalMs: 15_000, redeliveryTtlMs: 600_000, leaseTtlMs: 30_000, minBlockhashLifeMs: 20_000, blockhashPollMs: 2_000 });
    // The minimum sponsored quote defaults to 0, not 1,000 (docs/decisions.md, "Bounded sponsorship").
    expect(config.sponsorship).toEqual({ maxPriorityLamports: 10_000n, lamportsPerWindow: 100_000_000n, walletLamportsPerWindow: 10_000_000n, minQuoteAtomic: 0n, windowMs: 3_600_000 });
    expect(config.limits).toEqual({ rateLimitMax: 60, routeRateLimits: { enterprise: 120 }, freeTierRateLimit: 5, freeTierGlobalRpm: 12, unpaidBodyBytesPerMin: 20_000_000, cacheTtlSecs: 600 });
    expect(config.storage).toEqual({ kind: 'pglite', dataDir: config.dataDir });
    expect(config.redisUrl).toBeNull();
    expect(config.adminToken).toBeNull();
    expect(config.solana).toEqual({
      rpcUrl: 'https://api.mainnet-beta.solana.com',
      network: SOLANA_MAINNET_NETWORK,
      usdcMint: SOLANA_MAINNET_USDC_MINT,
      recipientWallet: WALLET,
      feePayerKeys: [],
      escrowProgramId: null,
      escrowProviderKey: null,
    });
    expect(config.escrow).toEqual({ claimRetryBaseMs: 1_000, breakerWindowMs: 300_000, breakerResetMs: 60_000, claimIntervalMs: 1_000, minQuoteAtomic: 31_500n, claimLamportsPerWindow: 100_000_000n });
    expect(config.a2a).toEqual({ taskTtlMs: 600_000, serveMs: 540_000, getRateLimit: 120 });
    expect(config.providers.openai).toEqual({ apiKey: null, baseUrl: 'https://api.openai.com/v1' });
    expect(config.providers.nvidia.baseUrl).toBe('https://integrate.api.nvidia.com/v1');
    expect(notices).toEqual([]);
  });

  it('reads every variable of the contract', () => {
    const feePayer = Keypair.generate();
    const { config } = loadConfig({
      ...base(),
      PORT: '9000',
      HOST: '127.0.0.1',
      GW_ENV: 'production',
      GW_ADMIN_TOKEN: 'a-long-admin-token-value',
      DATABASE_URL: 'postgres://gw:pw@db:5432/gw',
      REDIS_URL: 'redis://cache:6379',
      GW_SOLANA_RPC_URL: 'http://127.0.0.1:8899/',
      GW_SOLANA_NETWORK: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
      GW_USDC_MINT: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      GW_FEE_PAYER_KEYS: bs58.encode(feePayer.secretKey),
      GW_ESCROW_PROGRAM_ID: WALLET,
      ANTHROPIC_API_KEY: 'sk-ant',
      GW_ANTHROPIC_BASE_URL: 'http://127.0.0.1:9001/v1',
      GW_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com:8443',
      GW_RATE_LIMIT_MAX: '100',
      GW_ENTERPRISE_RATE_LIMIT: '240',
      GW_FREE_TIER_RATE_LIMIT: '7',
      GW_FREE_TIER_GLOBAL_RPM: '30',
      GW_MAX_CONCURRENT_REQUESTS: '8',
      GW_REQUEST_TIMEOUT_SECS: '5',
      GW_CACHE_TTL_SECS: '0',
      GW_SHUTDOWN_GRACE_SECS: '3',
      GW_STREAM_MAX_SECS: '90',
      GW_SSE_KEEPALIVE_MS: '5000',
      GW_SETTLEMENT_CONFIRM_SECS: '4',
      GW_RECONCILE_INTERVAL_SECS: '2',
      GW_REDELIVERY_TTL_SECS: '60',
      GW_LEASE_TTL_SECS: '10',
      GW_MIN_BLOCKHASH_LIFE_SECS: '30',
      GW_BLOCKHASH_POLL_MS: '500',
      GW_SPONSOR_MAX_PRIORITY_LAMPORTS: '5000',
      GW_SPONSOR_LAMPORTS_PER_HOUR: '2000000',
      GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR: '200000',
      GW_SPONSOR_MIN_ATOMIC: '1000',
      GW_SPONSOR_WINDOW_SECS: '60',
      GW_LOG_LEVEL: 'debug',
      GW_BODY_READ_TIMEOUT_SECS: '2',
      GW_MAX_BODY_BYTES_IN_FLIGHT: '1048576',
      GW_SEND_TIMEOUT_SECS: '5',
      GW_MAX_BODY_BYTES_IN_FLIGHT_PER_CLIENT: '0',
      GW_MAX_CONNECTIONS_PER_CLIENT: '0',
      GW_PROXY_PROTOCOL_CIDRS: '10.0.0.0/8, fd00::/8',
      GW_UNPAID_BODY_BYTES_PER_MIN: '0',
      GW_SOL_PRICE_USDC: '200.5',
      GW_CLAIM_LAMPORTS_PER_HOUR: '50000',
    });
    expect(config.http).toEqual({
      host: '127.0.0.1',
      port: 9000,
      corsOrigins: ['https://app.example.com', 'https://admin.example.com:8443'],
      maxConcurrentRequests: 8,
      requestTimeoutMs: 5000,
      streamMaxMs: 90_000,
      sseKeepAliveMs: 5000,
      shutdownGraceMs: 3000,
      bodyReadTimeoutMs: 2000,
      maxBodyBytesInFlight: 1_048_576,
      sendTimeoutMs: 5000,
      maxBodyBytesInFlightPerClient: 0,
      maxConnectionsPerClient: 0,
      proxyProtocolCidrs: ['10.0.0.0/8', 'fd00::/8'],
    });
    expect(config.settlement).toEqual({ confirmMs: 4000, reconcileIntervalMs: 2000, redeliveryTtlMs: 60_000, leaseTtlMs: 10_000, minBlockhashLifeMs: 30_000, blockhashPollMs: 500 });
    expect(config.sponsorship).toEqual({ maxPriorityLamports: 5_000n, lamportsPerWindow: 2_000_000n, walletLamportsPerWindow: 200_000n, minQuoteAtomic: 1_000n, windowMs: 60_000 });
    expect(config.storage.kind).toBe('postgres');
    expect(config.redisUrl?.reveal()).toBe('redis://cache:6379');
    expect(config.adminToken?.reveal()).toBe('a-long-admin-token-value');
    expect(config.solana.rpcUrl).toBe('http://127.0.0.1:8899');
    expect(config.solana.network).toBe('solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
    expect(config.solana.feePayerKeys.map((key) => key.reveal())).toEqual([feePayer.secretKey]);
    expect(config.providers.anthropic.apiKey?.reveal()).toBe('sk-ant');
    expect(config.providers.anthropic.baseUrl).toBe('http://127.0.0.1:9001/v1');
    expect(config.limits).toEqual({ rateLimitMax: 100, routeRateLimits: { enterprise: 240 }, freeTierRateLimit: 7, freeTierGlobalRpm: 30, unpaidBodyBytesPerMin: 0, cacheTtlSecs: 0 });
    // One claim's 10,000 lamports at 200.5 USDC per SOL is 2,005 atomic units, paid by the fee of a quote of 2,005 x 21.
    expect(config.escrow).toMatchObject({ minQuoteAtomic: 42_105n, claimLamportsPerWindow: 50_000n });
    expect(config.logLevel).toBe('debug');
  });

  it('takes GW_ESCROW_MIN_ATOMIC over the SOL price, and refuses a SOL price that is not a positive decimal', () => {
    expect(loadConfig({ ...base(), GW_ESCROW_MIN_ATOMIC: '0', GW_SOL_PRICE_USDC: '1' }).config.escrow.minQuoteAtomic).toBe(0n);
    for (const price of ['0', '-1', 'abc', '1.1234567']) expect(() => loadConfig({ ...base(), GW_SOL_PRICE_USDC: price })).toThrow(/GW_SOL_PRICE_USDC must be a price in USDC above 0/);
  });

  it('refuses a GW_PROXY_PROTOCOL_CIDRS entry that is not a CIDR, and a body read or send timeout of 0', () => {
    expect(() => loadConfig({ ...base(), GW_PROXY_PROTOCOL_CIDRS: '10.0.0.0/33' })).toThrow('GW_PROXY_PROTOCOL_CIDRS: "10.0.0.0/33" is not a CIDR like 127.0.0.1/32');
    expect(() => loadConfig({ ...base(), GW_BODY_READ_TIMEOUT_SECS: '0' })).toThrow('GW_BODY_READ_TIMEOUT_SECS must be an integer at least 1 (got "0")');
    expect(() => loadConfig({ ...base(), GW_SEND_TIMEOUT_SECS: '0' })).toThrow('GW_SEND_TIMEOUT_SECS must be an integer at least 1 (got "0")');
  });

  it('treats blank values as unset', () => {
    expect(loadConfig({ ...base(), PORT: '  ', REDIS_URL: '' }).config.http.port).toBe(8402);
  });

  describe('stops the start with one line naming the variable', () => {
    it.each([
      ['PORT', 'abc', 'PORT must be an integer between 0 and 65535 (got "abc")'],
      ['PORT', '70000', 'PORT must be an integer between 0 and 65535 (got "70000")'],
      ['GW_MAX_CONCURRENT_REQUESTS', '12x', 'GW_MAX_CONCURRENT_REQUESTS must be an integer at least 1 (got "12x")'],
      ['GW_MAX_CONCURRENT_REQUESTS', '0', 'GW_MAX_CONCURRENT_REQUESTS must be an integer at least 1 (got "0")'],
      ['GW_RATE_LIMIT_MAX', '-5', 'GW_RATE_LIMIT_MAX must be an integer at least 1 (got "-5")'],
      ['GW_REQUEST_TIMEOUT_SECS', '1.5', 'GW_REQUEST_TIMEOUT_SECS must be an integer at least 1 (got "1.5")'],
      ['GW_FREE_TIER_RATE_LIMIT', 'many', 'GW_FREE_TIER_RATE_LIMIT must be an integer at least 0 (got "many")'],
      ['GW_ENV', 'staging', 'GW_ENV must be one of development, production (got "staging")'],
      ['GW_RECIPIENT_WALLET', 'not-base58-0OIl', 'GW_RECIPIENT_WALLET must be a base58 Solana address of 32 bytes (got "not-base58-0OIl")'],
      ['GW_RECIPIENT_WALLET', '3yZe7d', 'GW_RECIPIENT_WALLET must be a base58 Solana address of 32 bytes (got "3yZe7d")'],
      ['GW_USDC_MINT', 'USDC', 'GW_USDC_MINT must be a base58 Solana address of 32 bytes (got "USDC")'],
      ['GW_SOLANA_RPC_URL', 'localhost:8899', 'GW_SOLANA_RPC_URL must be a http:// or https:// URL (got "localhost:8899")'],
      ['GW_OPENAI_BASE_URL', 'not a url', 'GW_OPENAI_BASE_URL must be a http:// or https:// URL (got "not a url")'],
      ['GW_NVIDIA_BASE_URL', 'ftp://x', 'GW_NVIDIA_BASE_URL must be a http:// or https:// URL (got "ftp://x")'],
      ['GW_SOLANA_NETWORK', 'mainnet', `GW_SOLANA_NETWORK must be a CAIP-2 id like ${SOLANA_MAINNET_NETWORK} (got "mainnet")`],
      ['GW_CORS_ORIGINS', 'https://a.example/path', 'GW_CORS_ORIGINS must list origins like https://app.example.com, comma-separated (got "https://a.example/path")'],
      ['GW_STORAGE', 'sqlite', 'GW_STORAGE must be "none" or unset (got "sqlite")'],
    ])('%s=%s', (name, value, message) => {
      expect(configError({ ...base(), [name]: value })).toBe(message);
    });

    it('a malformed fee payer key, without showing the key', () => {
      const good = bs58.encode(Keypair.generate().secretKey);
      const mismatched = Keypair.generate().secretKey;
      mismatched.set(Keypair.generate().publicKey.toBytes(), 32);
      for (const [value, index] of [
        ['not-a-key', 1],
        [`${good},${bs58.encode(Keypair.generate().publicKey.toBytes())}`, 2],
        [bs58.encode(mismatched), 1],
      ] as const) {
        const message = configError({ ...base(), GW_FEE_PAYER_KEYS: value });
        expect(message).toBe(`GW_FEE_PAYER_KEYS key #${index} is not a base58 64-byte Solana secret key (value not shown)`);
        expect(message).not.toContain(good);
      }
    });

    it('more than eight fee payer keys', () => {
      const keys = Array.from({ length: 9 }, () => bs58.encode(Keypair.generate().secretKey)).join(',');
      expect(configError({ ...base(), GW_FEE_PAYER_KEYS: keys })).toBe('GW_FEE_PAYER_KEYS holds 9 keys; at most 8 (a primary and 7 more) are allowed');
    });

    it('a malformed DATABASE_URL or REDIS_URL, without showing it (it may hold a password)', () => {
      expect(configError({ ...base(), DATABASE_URL: 'mysql://u:hunter2@h/db' })).toBe('DATABASE_URL must be a postgres:// or postgresql:// URL (value not shown)');
      expect(configError({ ...base(), REDIS_URL: 'hunter2' })).toBe('REDIS_URL must be a redis:// or rediss:// URL (value not shown)');
    });

    it('a short admin token, without showing it', () => {
      expect(configError({ ...base(), GW_ADMIN_TOKEN: 'hunter2' })).toBe('GW_ADMIN_TOKEN must be at least 16 characters (value not shown)');
    });

    it('GW_STORAGE=none together with DATABASE_URL', () => {
      expect(configError({ ...base(), GW_STORAGE: 'none', DATABASE_URL: 'postgres://db/gw' })).toBe('GW_STORAGE=none conflicts with DATABASE_URL; unset one of them');
    });
  });

  it('rejects a free-tier override of 0 and uses the default, with a warning', () => {
    const { config, notices } = loadConfig({ ...base(), GW_FREE_TIER_RATE_LIMIT: '0', GW_FREE_TIER_GLOBAL_RPM: '0' });
    expect(config.limits.freeTierRateLimit).toBe(5);
    expect(config.limits.freeTierGlobalRpm).toBe(12);
    expect(notices).toEqual([
      { level: 'warn', message: 'GW_FREE_TIER_RATE_LIMIT=0 is rejected (spec section 8); using the default 5' },
      { level: 'warn', message: 'GW_FREE_TIER_GLOBAL_RPM=0 is rejected (spec section 8); using the default 12' },
    ]);
  });

  it('selects storage: PostgreSQL with DATABASE_URL, none with GW_STORAGE=none, embedded PGlite otherwise', () => {
    expect(loadConfig({ ...base(), DATABASE_URL: 'postgresql://db/gw' }).config.storage.kind).toBe('postgres');
    expect(loadConfig({ ...base(), GW_STORAGE: 'none' }).config.storage).toEqual({ kind: 'none' });
    const dir = dataDir();
    expect(loadConfig({ ...base(), GW_DATA_DIR: dir }).config.storage).toEqual({ kind: 'pglite', dataDir: dir });
  });

  it('in production, allows only the configured CORS origins', () => {
    expect(loadConfig({ ...base(), GW_ENV: 'production' }).config.http.corsOrigins).toEqual([]);
    const development = loadConfig({ ...base(), GW_CORS_ORIGINS: 'https://app.example.com' }).config.http.corsOrigins;
    expect(development).toEqual([...DEVELOPMENT_CORS_ORIGINS, 'https://app.example.com']);
  });

  it('never shows secrets when the configuration is logged or serialised', () => {
    const key = bs58.encode(Keypair.generate().secretKey);
    const { config } = loadConfig({
      ...base(),
      OPENAI_API_KEY: 'sk-secret-openai',
      GW_ADMIN_TOKEN: 'admin-secret-token-1234',
      GW_FEE_PAYER_KEYS: key,
      DATABASE_URL: 'postgres://u:dbpass@h/db',
      REDIS_URL: 'redis://:redispass@h',
    });
    const json = JSON.stringify(config, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    for (const text of [json, inspect(config, { depth: 10 }), String(config.adminToken)]) {
      for (const secret of ['sk-secret-openai', 'admin-secret-token-1234', key, 'dbpass', 'redispass']) expect(text).not.toContain(secret);
    }
  });

  describe('the recipient wallet', () => {
    it('is required in production', () => {
      expect(configError({ GW_ENV: 'production', GW_DATA_DIR: dataDir() })).toBe('GW_RECIPIENT_WALLET is required when GW_ENV=production');
    });

    it('in development, is created once under GW_DATA_DIR and reused', () => {
      const dir = dataDir();
      const first = loadConfig({ GW_DATA_DIR: dir });
      const path = join(dir, 'recipient-wallet.json');
      expect(existsSync(path)).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const address = first.config.solana.recipientWallet;
      expect(Keypair.fromSecretKey(Uint8Array.from(JSON.parse(readFileSync(path, 'utf8')) as number[])).publicKey.toBase58()).toBe(address);
      expect(first.notices).toEqual([{ level: 'info', message: `GW_RECIPIENT_WALLET unset: created the local recipient wallet ${address} (${path})` }]);

      const second = loadConfig({ GW_DATA_DIR: dir });
      expect(second.config.solana.recipientWallet).toBe(address);
      expect(second.notices[0].message).toContain(`using the local recipient wallet ${address}`);
    });

    it('refuses a corrupt local wallet file', () => {
      const dir = dataDir();
      writeFileSync(join(dir, 'recipient-wallet.json'), '{"not":"a key"}');
      expect(configError({ GW_DATA_DIR: dir })).toBe(`GW_RECIPIENT_WALLET unset and ${join(dir, 'recipient-wallet.json')} is not a Solana key pair file; fix or remove it`);
    });
  });
});
