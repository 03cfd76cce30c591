import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { ExactSvmScheme } from '@x402/svm';
import { toHeaderForm, type PaymentRequiredBody } from '../../../libs/x402';
import type { RunningGateway } from '../../../src/gateway';
import { sdkTasks } from '../../support/a2a-client';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { pgliteStorage } from '../../support/storage-env';

const coreClient = require('@x402/core/client') as typeof import('@x402/core/dist/cjs/client');
const MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

type Required = PaymentRequiredBody & { accepts: Array<PaymentRequiredBody['accepts'][number] & { extra?: { decimals: number; feePayer?: string } }> };

describe('A2A with the official @a2a-js/sdk 0.3 client on the local chain', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    world = await startPaidWorld();
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN });
    client = await new ClientFactory().createFromUrl(gateway.url);
  });
  afterAll(async () => {
    await gateway.close();
    await world.close();
  });

  const quote = async (): Promise<{ task: Task; required: Required }> => {
    const task = await sdkTasks(client).quote();
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('input-required');
    return { task, required: task.status.message?.metadata?.['x402.payment.required'] as Required };
  };
  const pay = (task: Task, payload: unknown): Promise<Task> => sdkTasks(client).pay(task.id, payload);
  const recipient = () => world.localnet.usdcBalance(world.recipient.publicKey);

  it('discovers the card, quotes, and completes a task paid with an official x402 payload; tasks/get shows the answer and receipts', async () => {
    const { task, required } = await quote();
    const buyer = Keypair.generate();
    world.localnet.fundUsdc(buyer.publicKey, 1_000_000n);
    const x402 = new coreClient.x402Client().register(MAINNET, new ExactSvmScheme(await createKeyPairSignerFromBytes(buyer.secretKey), { rpcUrl: world.localnet.url }));
    const official = await x402.createPaymentPayload(toHeaderForm(required, { feePayer: required.accepts[0].extra?.feePayer }));
    const before = recipient();

    const done = await pay(task, official);

    expect(done.status.state).toBe('completed');
    expect(done.artifacts?.[0].parts[0]).toEqual({ kind: 'text', text: 'fake openai reply to: Say hello' });
    const receipts = done.status.message?.metadata?.['x402.payment.receipts'] as Array<{ tx_signature: string; receipt: string }>;
    expect(receipts[0].receipt).toMatch(/^\/v1\/receipts\/[0-9a-f-]{36}$/);
    expect(recipient() - before).toBe(BigInt(required.accepts[0].amount));
    expect(world.localnet.usdcBalance(buyer.publicKey)).toBe(1_000_000n - BigInt(required.accepts[0].amount));
    const read = await client.getTask({ id: task.id, historyLength: 5 });
    expect(read.status.state).toBe('completed');
    expect(read.artifacts?.[0].parts[0]).toEqual({ kind: 'text', text: 'fake openai reply to: Say hello' });
  });

  it('completes a task paid with a spec-form payload (snake_case JSON)', async () => {
    const { task, required } = await quote();
    const header = toHeaderForm(required, { feePayer: required.accepts[0].extra?.feePayer });
    const payload = JSON.parse(Buffer.from(specPaymentHeader(world, header), 'base64').toString()) as unknown;
    const done = await pay(task, payload);
    expect(done.status.state).toBe('completed');
  });

  it('reads an input-required task, cancels it, and reads it canceled', async () => {
    const { task } = await quote();
    expect((await client.getTask({ id: task.id })).status.message?.metadata?.['x402.payment.status']).toBe('payment-required');
    expect((await client.cancelTask({ id: task.id })).status.state).toBe('canceled');
    const read = await client.getTask({ id: task.id });
    expect(read.status.state).toBe('canceled');
    expect(read.status.message).toBeUndefined();
  });
});
