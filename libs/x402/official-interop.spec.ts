import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSigner } from '@solana/kit';
import bs58 from 'bs58';
import { VersionedTransaction } from '@solana/web3.js';
import { ExactSvmScheme } from '@x402/svm';
import type * as Official from '@x402/core/dist/cjs/types';
import { encodePaymentRequiredHeader, toHeaderForm } from './challenge';
import { decodePaymentSignature, encodePaymentSignature } from './payment-payload';
import { decodePaymentResponseHeader, encodePaymentResponseHeader, type SettleResponse } from './payment-response';
import { AGENT, CHAT, EXACT, FEE_PAYER, MAINNET, sampleBody, samplePayment } from './testing/samples';

/*
 * The official x402 packages, loaded the way their users load them. Jest follows their "exports"
 * maps; tsc here resolves modules the node10 way, which ignores those maps, so the types are taken
 * from the CommonJS build paths the maps point to.
 */
const coreHttp = require('@x402/core/http') as typeof import('@x402/core/dist/cjs/http');
const coreSchemas = require('@x402/core/schemas') as typeof import('@x402/core/dist/cjs/schemas');
const coreClient = require('@x402/core/client') as typeof import('@x402/core/dist/cjs/client');
const { wrapFetchWithPayment } = require('@x402/fetch') as typeof import('@x402/fetch/dist/cjs');

// tsc checks that our header and settlement types fit the official ones.
const header = toHeaderForm(sampleBody(), { feePayer: FEE_PAYER }) satisfies Official.PaymentRequired;
const settled = {
  success: true,
  transaction: '5'.repeat(88),
  network: MAINNET,
  payer: AGENT,
} satisfies SettleResponse & Official.SettleResponse;

describe('interoperation with the official x402 packages', () => {
  it('@x402/core decodes our PAYMENT-REQUIRED header to the same challenge, valid by its v2 schema', () => {
    const decoded = coreHttp.decodePaymentRequiredHeader(encodePaymentRequiredHeader(header));
    expect(decoded).toEqual(header);
    expect(coreSchemas.PaymentRequiredV2Schema.safeParse(decoded).error).toBeUndefined();
  });

  it('decodes the payment header the official client encodes, under the name it sends it', () => {
    const official = { x402Version: 2, resource: header.resource, accepted: header.accepts[0], payload: { transaction: EXACT.transaction } };
    const sent = new coreClient.x402HTTPClient(new coreClient.x402Client()).encodePaymentSignatureHeader(official);
    expect(Object.keys(sent)).toEqual(['PAYMENT-SIGNATURE']);
    expect(decodePaymentSignature(sent['PAYMENT-SIGNATURE'])).toEqual(samplePayment(EXACT));
  });

  it('writes camelCase payments that @x402/core decodes and its v2 schema accepts', () => {
    const decoded = coreHttp.decodePaymentSignatureHeader(encodePaymentSignature(samplePayment(EXACT), 'camel'));
    expect(coreSchemas.PaymentPayloadV2Schema.safeParse(decoded).error).toBeUndefined();
  });

  it('shares the PAYMENT-RESPONSE encoding with @x402/core both ways', () => {
    expect(coreHttp.decodePaymentResponseHeader(encodePaymentResponseHeader(settled))).toEqual(settled);
    expect(decodePaymentResponseHeader(coreHttp.encodePaymentResponseHeader(settled))).toEqual(settled);
  });

  describe('an unmodified @x402/fetch + @x402/svm client paying our challenge', () => {
    let rpc: Server;
    let rpcUrl: string;
    beforeAll(async () => {
      rpc = await startMintRpc();
      rpcUrl = `http://127.0.0.1:${(rpc.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => rpc.close(resolve)));

    /** Pays through a stand-in for the gateway that challenges first, then records the payment and settles. */
    async function pay(feePayer: string | undefined): Promise<{ response: Response; payments: string[] }> {
      const client = new coreClient.x402Client().register(MAINNET, new ExactSvmScheme(await generateKeyPairSigner(), { rpcUrl }));
      const payments: string[] = [];
      const gateway = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
        const payment = new Request(input, init).headers.get('PAYMENT-SIGNATURE');
        if (payment === null) {
          const challenge = encodePaymentRequiredHeader(toHeaderForm(sampleBody(), { feePayer }));
          return new Response(JSON.stringify(sampleBody()), { status: 402, headers: { 'PAYMENT-REQUIRED': challenge } });
        }
        payments.push(payment);
        return new Response('{}', { status: 200, headers: { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settled) } });
      };
      const response = await wrapFetchWithPayment(gateway, client)(`http://127.0.0.1${CHAT.url}`, { method: CHAT.method, body: '{}' });
      return { response, payments };
    }

    it('pays with a PAYMENT-SIGNATURE we decode: camelCase, our offer echoed, the gateway key as fee payer', async () => {
      const { response, payments } = await pay(FEE_PAYER);
      expect(response.status).toBe(200);
      expect(payments).toHaveLength(1);
      const payment = decodePaymentSignature(payments[0]);
      expect(payment).toEqual({
        x402Version: 2,
        resource: CHAT,
        accepted: header.accepts[0],
        payload: { kind: 'exact', transaction: expect.any(String) },
      });
      if (payment.payload.kind !== 'exact') throw new Error('not an exact payment');
      const transaction = VersionedTransaction.deserialize(Buffer.from(payment.payload.transaction, 'base64'));
      expect(transaction.message.staticAccountKeys[0].toBase58()).toBe(FEE_PAYER);
    });

    it('refuses to pay an offer without extra.feePayer', async () => {
      await expect(pay(undefined)).rejects.toThrow('feePayer is required in paymentRequirements.extra for SVM transactions');
    });
  });
});

/** Just enough Solana JSON-RPC for the SVM client: the USDC mint account (6 decimals) and a blockhash. */
async function startMintRpc(): Promise<Server> {
  const mint = Buffer.alloc(82);
  mint[44] = 6; // decimals, after the mint authority option (36 bytes) and the supply (8)
  mint[45] = 1; // initialised
  const results: Record<string, unknown> = {
    getAccountInfo: {
      context: { slot: 1 },
      value: {
        data: [mint.toString('base64'), 'base64'],
        owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
        executable: false,
        lamports: 1_461_600,
        rentEpoch: 0,
        space: 82,
      },
    },
    getLatestBlockhash: { context: { slot: 1 }, value: { blockhash: bs58.encode(Buffer.alloc(32, 2)), lastValidBlockHeight: 100 } },
  };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: unknown; method: string };
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result: results[method] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
