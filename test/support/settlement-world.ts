import type { Keypair } from '@solana/web3.js';
import type { RunningGateway } from '../../src/gateway';
import { postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld, type SpecPayment } from './paid-gateway';
import { startRpcFaultProxy, type RpcFaultProxy } from './rpc-fault-proxy';
import { fundedPayer, snapshot, type ChainSnapshot } from './settlement-probes';

/**
 * What the settlement suites (lifecycle, attacks, RPC faults) share: the local chain with its fake
 * providers, an RPC fault proxy in front of the chain, the gateways a test starts (closed after it),
 * and the expectations they all make of money and replays.
 */

/** The 402 body of a payment signature used a second time. */
export const REPLAYED = { error: { type: 'invalid_payment', message: 'transaction has already been used; each payment signature may only be submitted once', code: 'payment.replayed', param: null } };

export const NOTHING_MOVED: ChainSnapshot = { payer: 0n, recipient: 0n, feePayerLamports: 0n, landed: 0 };

/** Charged exactly the quote, once, client-paid fees (the gateway's fee payer pays nothing). */
export const chargedOnce = (amount: bigint): ChainSnapshot => ({ payer: -amount, recipient: amount, feePayerLamports: 0n, landed: 1 });

/** A JSON chat completion, as far as the tests read it. */
export interface ChatJson {
  choices: Array<{ message: { content: string | null }; finish_reason: string | null }>;
}

export interface SettlementWorld {
  readonly world: PaidWorld;
  /** An RPC fault proxy in front of the local chain; back to `pass` after each test. */
  readonly proxy: RpcFaultProxy;
  /** A paid gateway (`startPaidGateway`), closed after the running test whatever happened. */
  start(env: Record<string, string | undefined>): Promise<RunningGateway>;
  /** Closes the gateways started so far (before a test drops what they use; also done after each test). */
  closeGateways(): Promise<void>;
  /** Every chat request the fake providers received. */
  providerRequests(): number;
}

/**
 * Registers the suite's hooks (call it inside `describe`): beforeAll starts the paid world and the
 * RPC fault proxy; afterEach puts the proxy back to `pass`, closes the test's gateways
 * and resets the fakes; afterAll closes the proxy and the world. The accessors work from beforeAll on.
 */
export function useSettlementWorld(): SettlementWorld {
  let world: PaidWorld | undefined;
  let proxy: RpcFaultProxy | undefined;
  let gateways: RunningGateway[] = [];
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not ready: use it from beforeAll on`);
    return value;
  };
  const closeGateways = async (): Promise<void> => {
    const closing = gateways;
    gateways = [];
    await Promise.all(closing.map((gateway) => gateway.close()));
  };

  beforeAll(async () => {
    world = await startPaidWorld();
    proxy = await startRpcFaultProxy(world.localnet.url);
  }, 60_000);
  afterEach(async () => {
    proxy?.mode({ kind: 'pass' });
    await closeGateways();
    world?.upstreams.resetAll();
  });
  afterAll(async () => {
    await proxy?.close();
    await world?.close();
  });

  return {
    get world() {
      return ready(world, 'world');
    },
    get proxy() {
      return ready(proxy, 'proxy');
    },
    async start(env) {
      const gateway = await startPaidGateway(ready(world, 'world'), env);
      gateways.push(gateway);
      return gateway;
    },
    closeGateways,
    providerRequests() {
      const { openai, anthropic, google, nvidia } = ready(world, 'world').upstreams;
      return openai.requests.length + anthropic.requests.length + google.requests.length + nvidia.requests.length;
    },
  };
}

/** A paid request ready to send: a funded payer of its own, the quote for `body`, its signed payment, the chain before it. */
export interface PaidRequest {
  payer: Keypair;
  payment: string;
  amount: bigint;
  before: ChainSnapshot;
}

export async function paidRequest(world: PaidWorld, gateway: RunningGateway, body: Record<string, unknown>, options: Pick<SpecPayment, 'layout'> = {}): Promise<PaidRequest> {
  const payer = fundedPayer(world);
  const { header, amount } = await quote(gateway, body);
  const payment = specPaymentHeader(world, header, { payer, ...options });
  return { payer, payment, amount, before: snapshot(world, payer) };
}

/** A second use of `payment`: the replay 402. */
export async function expectReplay(gateway: RunningGateway, body: Record<string, unknown>, payment: string): Promise<void> {
  const res = await postChat(gateway, body, { 'payment-signature': payment });
  expect(res.status).toBe(402);
  expect(await res.json()).toEqual(REPLAYED);
}

/** Fails with every broken check named and the whole observation printed (a burst or a mix is hard to read check by check). */
export function expectAll(checks: Record<string, boolean>, observed: unknown): void {
  const broken = Object.keys(checks).filter((name) => !checks[name]);
  if (broken.length > 0) throw new Error(`broken: ${broken.join('; ')}\nobserved: ${JSON.stringify(observed, null, 2)}`);
}
