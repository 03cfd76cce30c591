import { getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { Connection, type Keypair, type PublicKey, VersionedTransaction } from '@solana/web3.js';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { ExactSvmScheme, toFacilitatorSvmSigner } from '@x402/svm';
import { startLocalnet, type Localnet } from './index';
import { fundSponsoredPayment } from './testing/sponsored-payment';

const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

/** What this test drives of @x402/svm's facilitator scheme. */
interface FacilitatorScheme {
  verify(payload: unknown, requirements: unknown): Promise<{ isValid: boolean; invalidReason?: string }>;
  settle(payload: unknown, requirements: unknown): Promise<{ success: boolean; transaction: string }>;
}
// The facilitator lives behind a package subpath export, which Jest resolves but TypeScript's
// node10 module resolution (tsconfig) cannot see; hence require() and the interface above.
const facilitatorModule = require('@x402/svm/exact/facilitator') as {
  ExactSvmScheme: new (signer: ReturnType<typeof toFacilitatorSvmSigner>) => FacilitatorScheme;
};

describe('a payment built by the official x402 client against the localnet', () => {
  let localnet: Localnet;
  let mint: PublicKey;
  let payer: Keypair;
  let recipient: Keypair;
  let feePayer: Keypair;

  beforeEach(async () => {
    localnet = await startLocalnet();
    ({ mint, payer, recipient, feePayer } = fundSponsoredPayment(localnet, 10_000n));
  });

  afterEach(() => localnet.close());

  const requirements = () => ({
    scheme: 'exact',
    network: SOLANA_MAINNET,
    amount: '1000',
    asset: mint.toBase58(),
    payTo: recipient.publicKey.toBase58(),
    maxTimeoutSeconds: 300,
    extra: { decimals: 6, feePayer: feePayer.publicKey.toBase58() },
  });

  async function createPayment() {
    const signer = await createKeyPairSignerFromBytes(payer.secretKey);
    return new ExactSvmScheme(signer, { rpcUrl: localnet.url }).createPaymentPayload(2, requirements());
  }

  it('deserialises, and once the fee payer co-signs, moves exactly the required amount', async () => {
    const payment = await createPayment();

    const transaction = VersionedTransaction.deserialize(Buffer.from(String(payment.payload.transaction), 'base64'));
    expect(transaction.version).toBe(0);
    expect(transaction.message.recentBlockhash).toBe(localnet.latestBlockhash().blockhash);
    const keys = transaction.message.staticAccountKeys;
    expect(keys[0].equals(feePayer.publicKey)).toBe(true); // the fee payer's slot is signer 0, still empty
    expect(transaction.signatures[0].every((byte) => byte === 0)).toBe(true);
    const transfer = transaction.message.compiledInstructions.find((instruction) => keys[instruction.programIdIndex].equals(TOKEN_PROGRAM_ID));
    expect(transfer?.data[0]).toBe(12); // TransferChecked

    const connection = new Connection(localnet.url, 'confirmed');
    const simulation = await connection.simulateTransaction(transaction, { sigVerify: false });
    expect(simulation.value.err).toBeNull();
    await expect(connection.sendRawTransaction(transaction.serialize())).rejects.toThrow(/signature verification failure/);

    transaction.sign([feePayer]);
    const signature = await connection.sendRawTransaction(transaction.serialize());
    const [status] = (await connection.getSignatureStatuses([signature])).value;
    expect(status).toEqual(expect.objectContaining({ err: null, confirmationStatus: 'finalized' }));

    expect(localnet.usdcBalance(payer.publicKey)).toBe(9_000n);
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(1_000n);
    expect(localnet.sentTransactions()).toEqual([{ signature, slot: 0, err: null }]);
    const recipientAta = getAssociatedTokenAddressSync(mint, recipient.publicKey);
    expect((await connection.getTokenAccountBalance(recipientAta)).value.amount).toBe('1000');
  });

  it('is verified and settled by the official x402 facilitator over the localnet RPC', async () => {
    const payment = await createPayment();
    const feePayerSigner = await createKeyPairSignerFromBytes(feePayer.secretKey);
    const facilitator = new facilitatorModule.ExactSvmScheme(toFacilitatorSvmSigner(feePayerSigner, { defaultRpcUrl: localnet.url }));
    const payload = { ...payment, accepted: requirements() };

    expect(await facilitator.verify(payload, requirements())).toEqual(expect.objectContaining({ isValid: true }));
    const settlement = await facilitator.settle(payload, requirements());

    expect(settlement).toEqual(expect.objectContaining({ success: true }));
    expect(localnet.sentTransactions()).toEqual([{ signature: settlement.transaction, slot: 0, err: null }]);
    expect(localnet.usdcBalance(recipient.publicKey)).toBe(1_000n);
  });
});
