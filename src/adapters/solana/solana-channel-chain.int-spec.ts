import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { startLocalnet, type Localnet } from '../../../libs/solana-localnet';
import { Secret } from '../../config/secret';
import { createSetAuthorityInstruction, AuthorityType } from '@solana/spl-token';
import { TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import type { SettlementLeg } from '../../modules/payments/ports/channel-chain';
import { KeypairFeePayers } from './keypair-fee-payers';
import { SolanaChannelChain } from './solana-channel-chain';
import { SolanaPaymentChain } from './solana-payment-chain';

const TIMING = { rpcTimeoutMs: 2_000, pollIntervalMs: 50 };
const CUSTODY_USDC = 5_000_000n;

describe('SolanaChannelChain against the localnet', () => {
  let localnet: Localnet;
  let custody: Keypair;
  let feePayer: Keypair;
  let agent: Keypair;
  let recipient: Keypair;
  let chain: SolanaChannelChain;
  let payments: SolanaPaymentChain;

  beforeEach(async () => {
    localnet = await startLocalnet();
    const mint = localnet.createUsdcMint();
    [custody, feePayer, agent, recipient] = [Keypair.generate(), Keypair.generate(), Keypair.generate(), Keypair.generate()];
    localnet.airdrop(custody.publicKey, LAMPORTS_PER_SOL);
    localnet.airdrop(feePayer.publicKey, LAMPORTS_PER_SOL);
    const feePayers = new KeypairFeePayers([new Secret(feePayer.secretKey)]);
    chain = new SolanaChannelChain(localnet.url, mint.toBase58(), custody.secretKey, feePayers, TIMING.rpcTimeoutMs);
    payments = new SolanaPaymentChain(localnet.url, feePayers, TIMING);
  });

  afterEach(() => localnet.close());

  const payout = (amount: bigint, channelId = 'channel-a'): SettlementLeg => ({ channelId, kind: 'payout', owner: recipient.publicKey.toBase58(), amount });
  const refund = (amount: bigint, channelId = 'channel-a'): SettlementLeg => ({ channelId, kind: 'refund', owner: agent.publicKey.toBase58(), amount });
  const hasTokenAccount = (owner: Keypair) => localnet.svm.getAccount(getAssociatedTokenAddressSync(localnet.usdcMint, owner.publicKey)) !== null;
  const land = async (legs: SettlementLeg[], payer: string | null) => {
    const prepared = await chain.settlementTransaction(legs, payer);
    if (!prepared) throw new Error('the settlement could not be signed');
    expect(await payments.send(prepared)).toEqual({ kind: 'sent' });
    expect(await payments.confirm(prepared.signature, 5_000)).toBe('confirmed');
  };

  it('names the custody wallet of its key', () => {
    expect(chain.custody).toBe(custody.publicKey.toBase58());
  });

  it("sees custody's token account once it exists, and reads its balance", async () => {
    expect(await chain.custodyAccountExists()).toBe(false);
    expect(await chain.custodyBalance()).toBe(0n);

    localnet.createTokenAccount(custody.publicKey);
    expect(await chain.custodyAccountExists()).toBe(true);
    expect(await chain.custodyBalance()).toBe(0n);

    localnet.fundUsdc(custody.publicKey, CUSTODY_USDC);
    expect(await chain.custodyBalance()).toBe(CUSTODY_USDC);
  });

  describe('settlements', () => {
    beforeEach(() => localnet.fundUsdc(custody.publicKey, CUSTODY_USDC));

    it("pays the payout into the recipient's token account, created at the fee payer's cost, and the refund into the agent's, in one transaction", async () => {
      localnet.createTokenAccount(agent.publicKey);
      const [custodyLamports, feePayerLamports] = [localnet.solBalance(custody.publicKey), localnet.solBalance(feePayer.publicKey)];

      await land([payout(300_000n), refund(700_000n)], feePayer.publicKey.toBase58());

      expect(localnet.usdcBalance(agent.publicKey)).toBe(700_000n);
      expect(localnet.usdcBalance(recipient.publicKey)).toBe(300_000n);
      expect(await chain.custodyBalance()).toBe(CUSTODY_USDC - 1_000_000n);
      expect(localnet.solBalance(custody.publicKey)).toBe(custodyLamports);
      expect(localnet.solBalance(feePayer.publicKey)).toBeLessThan(feePayerLamports);
    });

    it('pays the fee from custody without a fee payer', async () => {
      localnet.createTokenAccount(agent.publicKey);
      const [custodyLamports, feePayerLamports] = [localnet.solBalance(custody.publicKey), localnet.solBalance(feePayer.publicKey)];

      await land([refund(700_000n)], null);

      expect(localnet.usdcBalance(agent.publicKey)).toBe(700_000n);
      expect(localnet.solBalance(custody.publicKey)).toBeLessThan(custodyLamports);
      expect(localnet.solBalance(feePayer.publicKey)).toBe(feePayerLamports);
    });

    it("never creates the agent's token account: a refund is refundable only into one of the agent's own, and fails without it", async () => {
      expect(await chain.refundable(agent.publicKey.toBase58())).toBe(false);
      const prepared = await chain.settlementTransaction([refund(1n)], null);
      expect((await payments.send(prepared as NonNullable<typeof prepared>)).kind).toBe('rejected');
      expect(hasTokenAccount(agent)).toBe(false);

      localnet.createTokenAccount(agent.publicKey);
      expect(await chain.refundable(agent.publicKey.toBase58())).toBe(true);
      // Given away, the account is no longer the agent's to be refunded into.
      localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL / 100);
      const giveAway = new VersionedTransaction(
        new TransactionMessage({
          payerKey: agent.publicKey,
          recentBlockhash: localnet.latestBlockhash().blockhash,
          instructions: [createSetAuthorityInstruction(getAssociatedTokenAddressSync(localnet.usdcMint, agent.publicKey), agent.publicKey, AuthorityType.AccountOwner, Keypair.generate().publicKey)],
        }).compileToV0Message(),
      );
      giveAway.sign([agent]);
      localnet.svm.sendTransaction(giveAway);
      expect(await chain.refundable(agent.publicKey.toBase58())).toBe(false);
    });

    it('makes settlements of equal amounts two transactions, one per channel and leg', async () => {
      const signatures = await Promise.all([payout(1n, 'channel-a'), payout(1n, 'channel-b'), refund(1n, 'channel-a')].map(async (leg) => (await chain.settlementTransaction([leg], null))?.signature));
      expect(new Set(signatures).size).toBe(3);
    });

    it('refuses a leg that moves nothing', async () => {
      await expect(chain.settlementTransaction([payout(0n)], null)).rejects.toThrow();
    });

    it('builds nothing for a fee payer that is not ours', async () => {
      expect(await chain.settlementTransaction([payout(1n)], Keypair.generate().publicKey.toBase58())).toBeNull();
    });
  });
});
