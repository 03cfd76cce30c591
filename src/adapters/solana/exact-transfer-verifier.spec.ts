import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createTransferCheckedInstruction, createTransferInstruction, getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { ComputeBudgetProgram, AddressLookupTableAccount, Keypair, PublicKey, SystemProgram, TransactionInstruction, type VersionedTransaction } from '@solana/web3.js';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { ExactSvmScheme } from '@x402/svm';
import bs58 from 'bs58';
import { startLocalnet } from '../../../libs/solana-localnet';
import { Secret } from '../../config/secret';
import { PaymentRejection, type ExactExpectations, type PaymentRejectionReason } from '../../modules/payments/domain/exact-payment';
import { verifyExactTransfer } from './exact-transfer-verifier';
import { KeypairFeePayers } from './keypair-fee-payers';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked, type PaymentParties } from '../../../test/support/payment-transactions';

const MEMO_V2 = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

const parties: PaymentParties = {
  mint: Keypair.generate().publicKey,
  payTo: Keypair.generate().publicKey,
  payer: Keypair.generate(),
  gatewayFeePayer: Keypair.generate(),
  recentBlockhash: Keypair.generate().publicKey.toBase58(),
};
const feePayers = new KeypairFeePayers([new Secret(parties.gatewayFeePayer.secretKey)]);
const expectations: ExactExpectations = {
  payTo: parties.payTo.toBase58(),
  mint: parties.mint.toBase58(),
  minimumAmount: 1_000n,
  allowDurableNonce: false,
};
const payerAta = getAssociatedTokenAddressSync(parties.mint, parties.payer.publicKey);
const payToAta = getAssociatedTokenAddressSync(parties.mint, parties.payTo);

function verify(transaction: VersionedTransaction | string, overrides: Partial<ExactExpectations> = {}) {
  return verifyExactTransfer(typeof transaction === 'string' ? transaction : toBase64(transaction), { ...expectations, ...overrides }, feePayers);
}

function rejectionOf(transaction: VersionedTransaction | string, overrides: Partial<ExactExpectations> = {}): PaymentRejectionReason {
  try {
    verify(transaction, overrides);
  } catch (err) {
    if (err instanceof PaymentRejection) return err.reason;
    throw err;
  }
  throw new Error('the transaction was accepted');
}

function memo(text: string, signers: PublicKey[] = []): TransactionInstruction {
  return new TransactionInstruction({
    programId: MEMO_V2,
    keys: signers.map((pubkey) => ({ pubkey, isSigner: true, isWritable: false })),
    data: Buffer.from(text),
  });
}

const nonceAccount = Keypair.generate().publicKey;
const nonceAdvance = (authorizedPubkey = parties.payer.publicKey) => SystemProgram.nonceAdvance({ noncePubkey: nonceAccount, authorizedPubkey });

describe('verifyExactTransfer', () => {
  describe.each(['legacy', 0] as const)('accepts a %s transaction', (version) => {
    it('paid by the client, who signs alone', () => {
      const transaction = paymentTransaction(parties, { version });

      expect(verify(transaction)).toEqual({
        payer: parties.payer.publicKey.toBase58(),
        source: payerAta.toBase58(),
        destination: payToAta.toBase58(),
        amount: 1_000n,
        signature: bs58.encode(transaction.signatures[0]),
        replayKey: createHash('sha256').update(transaction.message.serialize()).digest('base64url'),
        feePayer: parties.payer.publicKey.toBase58(),
        layout: 'client-paid',
        recentBlockhash: parties.recentBlockhash,
        nonceAccount: null,
        // 20,000 units at 1 micro-lamport each round up to 1 lamport.
        priorityFeeLamports: 1n,
        networkFeeLamports: 5_001n,
      });
    });

    it("sponsored by the gateway's fee payer, whose slot is still empty", () => {
      const transaction = paymentTransaction(parties, { version, layout: 'sponsored' });
      expect(transaction.signatures[0].every((byte) => byte === 0)).toBe(true);

      expect(verify(transaction)).toEqual(
        expect.objectContaining({
          payer: parties.payer.publicKey.toBase58(),
          signature: bs58.encode(transaction.signatures[1]),
          feePayer: parties.gatewayFeePayer.publicKey.toBase58(),
          layout: 'sponsored',
          // Two signatures: the fee payer's and the payer's.
          networkFeeLamports: 10_001n,
        }),
      );
    });
  });

  it('accepts more than the quote, no compute budget at all, the highest compute price, and memos', () => {
    expect(verify(paymentTransaction(parties, { instructions: [transferChecked(parties, { amount: 5_000n })] }))).toEqual(
      expect.objectContaining({ amount: 5_000n, priorityFeeLamports: 0n, networkFeeLamports: 5_000n }),
    );
    const withMemos = [...paymentInstructions(transferChecked(parties), 5_000_000n), memo('3f2a'), memo('order 7')];
    expect(verify(paymentTransaction(parties, { instructions: withMemos, layout: 'sponsored' }))).toEqual(
      // 5,000,000 micro-lamports for 20,000 units: what the gateway's sponsorship bound then judges.
      expect.objectContaining({ priorityFeeLamports: 100_000n, networkFeeLamports: 110_000n }),
    );
  });

  it('ignores whatever a client put in the sponsored fee payer slot, which the gateway fills itself', () => {
    const transaction = paymentTransaction(parties, { layout: 'sponsored' });
    transaction.signatures[0] = new Uint8Array(64).fill(7);
    expect(verify(transaction).layout).toBe('sponsored');
  });

  describe('durable nonce', () => {
    const nonceTransaction = (authority?: PublicKey) => paymentTransaction(parties, { layout: 'sponsored', instructions: [nonceAdvance(authority), ...paymentInstructions(transferChecked(parties))] });

    it('is refused while durable-nonce payments are not allowed', () => {
      expect(rejectionOf(nonceTransaction())).toBe('durable-nonce');
    });

    it('is accepted when allowed, naming the nonce account', () => {
      expect(verify(nonceTransaction(), { allowDurableNonce: true })).toEqual(
        expect.objectContaining({ nonceAccount: nonceAccount.toBase58(), recentBlockhash: parties.recentBlockhash, layout: 'sponsored' }),
      );
    });

    it('is refused when the nonce authority is not the payer', () => {
      expect(rejectionOf(nonceTransaction(parties.gatewayFeePayer.publicKey), { allowDurableNonce: true })).toBe('durable-nonce');
    });

    it('is refused anywhere but first', () => {
      const late = paymentTransaction(parties, { instructions: [...paymentInstructions(transferChecked(parties)), nonceAdvance()] });
      expect(rejectionOf(late, { allowDurableNonce: true })).toBe('disallowed-instruction');
    });
  });

  const otherWallet = Keypair.generate();
  const otherMint = Keypair.generate().publicKey;
  const withTransfer = (transfer: TransactionInstruction) => paymentTransaction(parties, { instructions: paymentInstructions(transfer) });
  const tamperedAmount = () => {
    const wire = paymentTransaction(parties).serialize();
    // The transfer's u64 amount (1,000 = e8 03) sits right before its decimals byte near the end.
    const at = Buffer.from(wire).lastIndexOf(Buffer.from([0xe8, 0x03, 0, 0, 0, 0, 0, 0, 6]));
    wire[at + 1] = 0x13;
    return Buffer.from(wire).toString('base64');
  };
  const smallOrderForgery = () => {
    // The identity point as a public key: R = B and S = 1 satisfy the Ed25519 equation for any message.
    const identity = new PublicKey(Uint8Array.from([1, ...new Array<number>(31).fill(0)]));
    const transfer = transferChecked(parties, { authority: identity });
    const transaction = paymentTransaction(parties, { feePayer: identity, instructions: paymentInstructions(transfer), signers: [] });
    const basePoint = Buffer.from('5866666666666666666666666666666666666666666666666666666666666666', 'hex');
    transaction.signatures[0] = Uint8Array.from([...basePoint, 1, ...new Array<number>(31).fill(0)]);
    return transaction;
  };

  it.each<[string, () => VersionedTransaction | string, PaymentRejectionReason]>([
    ['a different mint', () => withTransfer(transferChecked(parties, { mint: otherMint })), 'mint'],
    ['a transfer to another wallet', () => withTransfer(transferChecked(parties, { destination: getAssociatedTokenAddressSync(parties.mint, otherWallet.publicKey) })), 'destination'],
    ['a transfer to the recipient wallet itself, not its token account', () => withTransfer(transferChecked(parties, { destination: parties.payTo })), 'destination'],
    ['less than the quote', () => withTransfer(transferChecked(parties, { amount: 999n })), 'amount'],
    ['decimals other than USDC', () => withTransfer(transferChecked(parties, { decimals: 9 })), 'decimals'],
    ['a plain SPL Transfer', () => withTransfer(createTransferInstruction(payerAta, payToAta, parties.payer.publicKey, 1_000n)), 'not-transfer-checked'],
    [
      'a Token-2022 TransferChecked',
      () => withTransfer(createTransferCheckedInstruction(payerAta, parties.mint, payToAta, parties.payer.publicKey, 1_000n, 6, [], TOKEN_2022_PROGRAM_ID)),
      'disallowed-instruction',
    ],
    ['only compute budget instructions', () => paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties)).slice(0, 2) }), 'not-transfer-checked'],
    [
      'a System transfer beside the payment',
      () =>
        paymentTransaction(parties, {
          instructions: [...paymentInstructions(transferChecked(parties)), SystemProgram.transfer({ fromPubkey: parties.payer.publicKey, toPubkey: otherWallet.publicKey, lamports: 1 })],
        }),
      'disallowed-instruction',
    ],
    [
      'two TransferChecked',
      () =>
        paymentTransaction(parties, {
          instructions: [...paymentInstructions(transferChecked(parties)), transferChecked(parties, { destination: getAssociatedTokenAddressSync(parties.mint, otherWallet.publicKey) })],
        }),
      'multiple-transfers',
    ],
    [
      'a memo that requires signers',
      () => paymentTransaction(parties, { instructions: [...paymentInstructions(transferChecked(parties)), memo('x', [parties.payer.publicKey])] }),
      'disallowed-instruction',
    ],
    ['a compute-unit price above 5,000,000', () => paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties), 5_000_001n) }), 'compute-price'],
    [
      'a compute-unit limit above 200,000 (the sponsored fee would grow with it)',
      () => paymentTransaction(parties, { instructions: [ComputeBudgetProgram.setComputeUnitLimit({ units: 200_001 }), transferChecked(parties)] }),
      'compute-budget',
    ],
    [
      'a compute-unit price without a limit',
      () => paymentTransaction(parties, { instructions: [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1n }), transferChecked(parties)] }),
      'compute-budget',
    ],
    [
      'a repeated compute-unit price',
      () => paymentTransaction(parties, { instructions: [...paymentInstructions(transferChecked(parties)), ...paymentInstructions(transferChecked(parties)).slice(1, 2)] }),
      'compute-budget',
    ],
    ['an unsigned transaction', () => paymentTransaction(parties, { signers: [] }), 'signature'],
    ['an unsigned sponsored transaction', () => paymentTransaction(parties, { layout: 'sponsored', signers: [] }), 'signature'],
    [
      'a corrupted signature',
      () => {
        const transaction = paymentTransaction(parties);
        transaction.signatures[0][10] ^= 0x01;
        return transaction;
      },
      'signature',
    ],
    [
      "another key's signature in the payer's slot",
      () => {
        const transaction = paymentTransaction(parties);
        transaction.signatures[0] = paymentTransaction({ ...parties, payer: otherWallet }).signatures[0];
        return transaction;
      },
      'signature',
    ],
    ['an amount raised after signing', tamperedAmount, 'signature'],
    ['a signature under a small-order key, which OpenSSL alone would accept', smallOrderForgery, 'signature'],
    [
      "a transfer authorised by the gateway's fee payer",
      () =>
        paymentTransaction(parties, {
          layout: 'sponsored',
          instructions: paymentInstructions(transferChecked(parties, { authority: parties.gatewayFeePayer.publicKey })),
          signers: [parties.gatewayFeePayer],
        }),
      'fee-payer-transfer',
    ],
    [
      "a transfer out of the gateway fee payer's token account",
      () =>
        paymentTransaction(parties, {
          layout: 'sponsored',
          instructions: paymentInstructions(transferChecked(parties, { source: getAssociatedTokenAddressSync(parties.mint, parties.gatewayFeePayer.publicKey) })),
        }),
      'fee-payer-transfer',
    ],
    ['a client-paid transaction with a second signer', () => paymentTransaction(parties, { feePayer: otherWallet.publicKey, signers: [otherWallet, parties.payer] }), 'layout'],
    [
      'address lookup tables',
      () =>
        paymentTransaction(parties, {
          lookupTables: [
            new AddressLookupTableAccount({
              key: Keypair.generate().publicKey,
              state: { deactivationSlot: BigInt('18446744073709551615'), lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [payToAta] },
            }),
          ],
        }),
      'lookup-tables',
    ],
    ['text that is not base64', () => 'not a transaction!', 'undecodable'],
    ['base64 of random bytes', () => Buffer.from(Keypair.generate().secretKey).toString('base64'), 'undecodable'],
    ['a valid transaction followed by extra bytes', () => Buffer.concat([paymentTransaction(parties).serialize(), Buffer.from([0])]).toString('base64'), 'undecodable'],
    ['more than one packet', () => 'A'.repeat(4_000), 'undecodable'],
  ])('refuses %s', (_name, build, reason) => {
    expect(rejectionOf(build())).toBe(reason);
  });

  it('accepts a payment built by the official x402 client as sponsored', async () => {
    const localnet = await startLocalnet();
    try {
      const mint = localnet.createUsdcMint();
      const signer = await createKeyPairSignerFromBytes(parties.payer.secretKey);
      const payment = await new ExactSvmScheme(signer, { rpcUrl: localnet.url }).createPaymentPayload(2, {
        scheme: 'exact',
        network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
        amount: '1000',
        asset: mint.toBase58(),
        payTo: parties.payTo.toBase58(),
        maxTimeoutSeconds: 300,
        extra: { decimals: 6, feePayer: parties.gatewayFeePayer.publicKey.toBase58() },
      });

      const verified = verify(String(payment.payload.transaction), { mint: mint.toBase58() });

      expect(verified).toEqual({
        payer: parties.payer.publicKey.toBase58(),
        source: getAssociatedTokenAddressSync(mint, parties.payer.publicKey).toBase58(),
        destination: getAssociatedTokenAddressSync(mint, parties.payTo).toBase58(),
        amount: 1_000n,
        signature: expect.any(String),
        replayKey: expect.any(String),
        feePayer: parties.gatewayFeePayer.publicKey.toBase58(),
        layout: 'sponsored',
        recentBlockhash: localnet.latestBlockhash().blockhash,
        nonceAccount: null,
        // 20,000 units at 1 micro-lamport each round up to 1 lamport; the fee payer and the payer sign.
        priorityFeeLamports: 1n,
        networkFeeLamports: 10_001n,
      });
    } finally {
      await localnet.close();
    }
  });

  it('verifies a payment in well under a millisecond (figure printed, not asserted)', () => {
    const transactions = [paymentTransaction(parties), paymentTransaction(parties, { layout: 'sponsored', version: 'legacy' })].map(toBase64);
    const rounds = 2_000;
    for (let i = 0; i < rounds / 10; i++) verify(transactions[i % 2]); // warm-up: JIT and the token-account cache
    const started = performance.now();
    for (let i = 0; i < rounds; i++) verify(transactions[i % 2]);
    const microseconds = ((performance.now() - started) * 1_000) / rounds;
    process.stdout.write(`verifyExactTransfer: ${microseconds.toFixed(1)} µs per transaction over ${rounds}\n`);
    expect(verify(transactions[0]).layout).toBe('client-paid');
  });
});
