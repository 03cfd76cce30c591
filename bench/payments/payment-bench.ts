/**
 * What a payment costs the gateway (docs/performance.md): decoding the PAYMENT-SIGNATURE header plus verifying
 * its transaction (no network), per request; and the end-to-end latency of paid chat requests on
 * the local chain (verify, blockhash check, simulation, replay claim, receipt, provider, broadcast
 * and confirmation; a stream's time to its first content event, which its headers wait for), sequential,
 * everything in this process on loopback; and the JSON-RPC calls a
 * paid request makes, counted by a proxy in front of the chain (the blockhash tracker's polls
 * apart). With `--budget` the payer has a wallet budget, so every paid request also reserves
 * against it (one transaction with a row lock) and converts the reservation at settlement. With
 * `--escrow` each round also sends an escrow-paid JSON request (the deposit verified, simulated,
 * sent and confirmed before the provider; the claim afterwards, off the request's path). With
 * `--a2a` each round also quotes and pays an A2A task (JSON-RPC; settled before serving). With
 * `--channel` (escrow rounds included, so the three schemes stand side by side) an agent opens a
 * payment channel and each round also draws a chat answer from it with a voucher (libs/channel-client);
 * then each scheme pays its own run of requests alone, and the lamports the gateway's wallets and
 * the client lost are read from the chain: network fees per 1,000 requests, a channel's open and
 * close counted once per 1,000 (docs/performance.md). Channels need Redis: REDIS_URL, else
 * 127.0.0.1:6379, on a database of the bench's own.
 *   npm run bench:payments [-- --quick] [-- --budget] [-- --escrow] [-- --a2a] [-- --channel]
 */
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { decodePaymentSignature } from '../../libs/x402';
import { Secret } from '../../src/config/secret';
import { KeypairFeePayers } from '../../src/adapters/solana/keypair-fee-payers';
import { verifyExactTransfer } from '../../src/adapters/solana/exact-transfer-verifier';
import { chatBody, PAID_MODEL, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld } from '../../test/support/paid-gateway';
import { microBench, printMicroTable } from '../harness/micro-bench';
import { percentiles } from '../harness/percentiles';
import { startRpcFaultProxy } from '../../test/support/rpc-fault-proxy';
import { escrowConfig } from '../../test/support/escrow-payments';
import { BenchChannel, benchRedisUrl, channelCustody, channelDeposit, escrowDeposit, escrowPaidChat, measureNetworkFees, newClient, printNetworkFees, untilClaimed } from './channel-rounds';

const quick = process.argv.includes('--quick');
const budgeted = process.argv.includes('--budget');
const channeled = process.argv.includes('--channel');
const escrowed = process.argv.includes('--escrow') || channeled;
const overA2A = process.argv.includes('--a2a');
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const PAID_REQUESTS = quick ? 50 : 300;
/** Requests each scheme pays alone for the network fees (`--channel`). */
const FEE_REQUESTS = quick ? 20 : 100;

const RPC_METHODS = ['isBlockhashValid', 'simulateTransaction', 'getAccountInfo', 'sendTransaction', 'getSignatureStatuses', 'getLatestBlockhash', 'getEpochInfo', 'getBlockHeight', 'getSlot'];

async function main(): Promise<void> {
  const redisUrl = channeled ? await benchRedisUrl() : null;
  if (channeled && redisUrl === null) process.exit(1);
  const world = await startPaidWorld({ escrow: escrowed });
  // Each deposit's rent (escrow and vault accounts) is out until its claim closes them.
  if (escrowed) world.localnet.airdrop(world.payer.publicKey, 5 * LAMPORTS_PER_SOL);
  const channels = redisUrl === null ? null : channelCustody(world, redisUrl);
  const rpc = await startRpcFaultProxy(world.localnet.url);
  const gateway = await startPaidGateway(world, {
    ...channels?.env,
    GW_LOG_LEVEL: 'silent',
    GW_STORAGE: undefined,
    GW_DATA_DIR: `${require('node:os').tmpdir()}/gw-bench-${process.pid}`,
    GW_SOLANA_RPC_URL: rpc.url,
    GW_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  try {
    if (budgeted) {
      const res = await fetch(`${gateway.url}/v1/wallets/${world.payer.publicKey.toBase58()}/budget`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
        body: JSON.stringify({ hourly: 1_000, daily: 10_000, monthly: 100_000 }),
      });
      if (res.status !== 200) throw new Error(`setting the budget answered ${res.status}`);
      console.log('the payer has a wallet budget: every paid request reserves against it');
    }
    const { header, amount } = await quote(gateway, chatBody());
    const feePayers = new KeypairFeePayers([new Secret(world.feePayer.secretKey)]);
    const expectations = { payTo: world.recipient.publicKey.toBase58(), mint: world.mint.toBase58(), minimumAmount: amount, allowDurableNonce: false };
    const clientPaid = specPaymentHeader(world, header);
    const sponsored = specPaymentHeader(world, header, { layout: 'sponsored', casing: 'camel' });
    const verify = (value: string) => () => {
      const payment = decodePaymentSignature(value);
      return verifyExactTransfer((payment.payload as { transaction: string }).transaction, expectations, feePayers);
    };
    printMicroTable([
      microBench('decode + verify, client-paid (snake_case)', verify(clientPaid), { warmup: 500, iterations: 5_000 }),
      microBench('decode + verify, sponsored (camelCase)', verify(sponsored), { warmup: 500, iterations: 5_000 }),
      microBench('ed25519 key pair only (reference)', () => Keypair.generate(), { warmup: 200, iterations: 2_000 }),
    ]);

    // The micro benchmarks held the event loop for seconds: one poll interval lets the blockhash tracker catch up.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // Pre-sign every payment so the timing holds only the gateway's work.
    const payments = Array.from({ length: PAID_REQUESTS }, () => specPaymentHeader(world, header));
    const streamBody = chatBody({ stream: true });
    const streamPayments = Array.from({ length: PAID_REQUESTS }, () => specPaymentHeader(world, header));
    const depositConfig = escrowed ? await escrowConfig(gateway) : null;
    const deposits = depositConfig ? await Promise.all(Array.from({ length: PAID_REQUESTS }, () => escrowDeposit(world, gateway, world.payer, amount, depositConfig))) : [];
    const escrowPaid = new Float64Array(escrowed ? PAID_REQUESTS : 0);
    const channel = channels && (await BenchChannel.open(world, gateway, channels.custody.publicKey, newClient(world, channelDeposit(amount, PAID_REQUESTS)), channelDeposit(amount, PAID_REQUESTS)));
    const drawn = new Float64Array(channel ? PAID_REQUESTS : 0);
    // A2A payments name the resource /a2a and pay the same quote: pre-signed like the others.
    const a2aPayments = overA2A ? Array.from({ length: PAID_REQUESTS }, () => JSON.parse(Buffer.from(specPaymentHeader(world, header, { resourceUrl: '/a2a' }), 'base64').toString()) as unknown) : [];
    const a2aQuotes = new Float64Array(overA2A ? PAID_REQUESTS : 0);
    const a2aPaid = new Float64Array(overA2A ? PAID_REQUESTS : 0);
    const paid = new Float64Array(PAID_REQUESTS);
    const streamed = new Float64Array(PAID_REQUESTS);
    const firstContent = new Float64Array(PAID_REQUESTS);
    const quotes = new Float64Array(PAID_REQUESTS);
    const callsBefore = new Map(RPC_METHODS.map((method) => [method, rpc.calls(method)]));
    for (let i = 0; i < PAID_REQUESTS; i++) {
      let start = performance.now();
      await (await postChat(gateway, chatBody())).arrayBuffer();
      quotes[i] = performance.now() - start;
      start = performance.now();
      const res = await postChat(gateway, chatBody(), { 'payment-signature': payments[i] });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`paid request ${i} answered ${res.status}`);
      paid[i] = performance.now() - start;
      start = performance.now();
      const stream = await postChat(gateway, streamBody, { 'payment-signature': streamPayments[i] });
      const { text, firstContentMs } = await readStream(stream, start);
      if (stream.status !== 200 || !text.includes('[DONE]')) throw new Error(`paid stream ${i} answered ${stream.status}`);
      streamed[i] = performance.now() - start;
      firstContent[i] = firstContentMs;
      if (overA2A) {
        start = performance.now();
        const quoted = await rpc2(gateway.url, 'message/send', {
          message: { kind: 'message', messageId: `q${i}`, role: 'user', parts: [{ kind: 'text', text: 'Say hello' }], metadata: { model: PAID_MODEL, max_tokens: 50 } },
        });
        a2aQuotes[i] = performance.now() - start;
        start = performance.now();
        const metadata = { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': a2aPayments[i] };
        const paidTask = await rpc2(gateway.url, 'message/send', {
          message: { kind: 'message', messageId: `p${i}`, role: 'user', taskId: quoted.id, parts: [{ kind: 'text', text: 'Say hello' }], metadata },
        });
        if (paidTask.status.state !== 'completed') throw new Error(`A2A task ${i} ended ${paidTask.status.state}`);
        a2aPaid[i] = performance.now() - start;
      }
      if (channel) drawn[i] = await channel.draw();
      if (!escrowed) continue;
      start = performance.now();
      await escrowPaidChat(gateway, deposits[i].header);
      escrowPaid[i] = performance.now() - start;
    }
    const row = (name: string, samples: Float64Array) => {
      const p = percentiles(samples);
      return { request: name, n: samples.length, 'p50 ms': p.p50.toFixed(2), 'p90 ms': p.p90.toFixed(2), 'p99 ms': p.p99.toFixed(2) };
    };
    console.log('end to end on the local chain (sequential; gateway, chain and fake provider in this process):');
    console.table([
      row('402 quote', quotes),
      row('exact-paid, JSON, answer and confirmation', paid),
      row('exact-paid, stream, to its first content event', firstContent),
      row('exact-paid, stream, to [DONE]', streamed),
      ...(escrowed ? [row('escrow-paid, JSON (deposit confirmed before serving)', escrowPaid)] : []),
      ...(channel ? [row('channel-paid, JSON (a voucher drawn; nothing on chain)', drawn)] : []),
      ...(overA2A ? [row('A2A message/send, quote', a2aQuotes), row('A2A message/send, paid (settled before serving), completed', a2aPaid)] : []),
    ]);
    const paidRequests = (2 + (escrowed ? 1 : 0) + (channel ? 1 : 0) + (overA2A ? 1 : 0)) * PAID_REQUESTS;
    console.log(
      `JSON-RPC calls per paid request (${paidRequests} paid requests; getLatestBlockhash and getEpochInfo are the tracker's timer; getBlockHeight is acceptance's, at most one read per 100 ms, beside the simulation):`,
    );
    console.table(RPC_METHODS.map((method) => ({ method, 'calls per paid request': ((rpc.calls(method) - (callsBefore.get(method) ?? 0)) / paidRequests).toFixed(2) })));
    if (channel && channels) {
      if (channel.retriedDraws > 0) console.log(`${channel.retriedDraws} draws took a second voucher (a busy channel or a resync): their wait is in their time`);
      // The fee runs read balances, so the latency rounds' claims and close must have landed first.
      await Promise.all([
        untilClaimed(
          world,
          deposits.map((deposit) => deposit.escrow),
        ),
        channel.close(),
      ]);
      console.log(
        `network fees per 1,000 requests, counted on the local chain (each scheme pays ${FEE_REQUESTS} chat requests alone; lamports its client and the gateway's fee payer, custody and escrow provider lost; a channel's open and close once per 1,000 requests, here over ${FEE_REQUESTS} draws; ~USDC at 150 USDC/SOL):`,
      );
      printNetworkFees(await measureNetworkFees(world, gateway, channels.custody, header, FEE_REQUESTS));
    }
  } finally {
    await gateway.close();
    await rpc.close();
    await world.close();
  }
}

/** A stream's whole text, and when its first content event arrived (ms since `start`): headers leave with it, after the broadcast. */
async function readStream(res: Response, start: number): Promise<{ text: string; firstContentMs: number }> {
  const decoder = new TextDecoder();
  let text = '';
  let firstContentMs = Number.NaN;
  for await (const bytes of res.body ?? []) {
    text += decoder.decode(bytes as Uint8Array, { stream: true });
    if (Number.isNaN(firstContentMs) && /"content":"[^"]/.test(text)) firstContentMs = performance.now() - start;
  }
  return { text, firstContentMs };
}

/** One JSON-RPC call to /a2a; its task. */
async function rpc2(url: string, method: string, params: unknown): Promise<{ id: string; status: { state: string } }> {
  const res = await fetch(`${url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: { id: string; status: { state: string } }; error?: unknown };
  if (!body.result) throw new Error(`${method} answered ${JSON.stringify(body.error)}`);
  return body.result;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
