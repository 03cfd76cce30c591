import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { startLocalnet, type Localnet } from '../../../libs/solana-localnet';
import { Secret } from '../../config/secret';
import type { CloseOrder } from '../../modules/payments/ports/channel-chain';
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
    chain = new SolanaChannelChain(localnet.url, mint.toBase58(), recipient.publicKey.toBase58(), custody.secretKey, feePayers, TIMING.rpcTimeoutMs);
    payments = new SolanaPaymentChain(localnet.url, feePayers, TIMING);
  });

  afterEach(() => localnet.close());

  const order = (refund: bigint, payout: bigint, channelId = 'channel-a'): CloseOrder => ({ channelId, agent: agent.publicKey.toBase58(), refund, payout });
  const hasTokenAccount = (owner: Keypair) => localnet.svm.getAccount(getAssociatedTokenAddressSync(localnet.usdcMint, owner.publicKey)) !== null;
  const land = async (closeOrder: CloseOrder, payer: string | null) => {
    const prepared = await chain.closeTransaction(closeOrder, payer);
    if (!prepared) throw new Error('the close could not be signed');
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

  describe('closes', () => {
    beforeEach(() => localnet.fundUsdc(custody.publicKey, CUSTODY_USDC));

    it("moves exactly the refund and the payout, creating the agent's token account, the fee paid by our fee payer", async () => {
      const [custodyLamports, feePayerLamports] = [localnet.solBalance(custody.publicKey), localnet.solBalance(feePayer.publicKey)];

      await land(order(700_000n, 300_000n), feePayer.publicKey.toBase58());

      expect(localnet.usdcBalance(agent.publicKey)).toBe(700_000n);
      expect(localnet.usdcBalance(recipient.publicKey)).toBe(300_000n);
      expect(await chain.custodyBalance()).toBe(CUSTODY_USDC - 1_000_000n);
      expect(localnet.solBalance(custody.publicKey)).toBe(custodyLamports);
      expect(localnet.solBalance(feePayer.publicKey)).toBeLessThan(feePayerLamports);
    });

    it('pays the fee and the rents from custody without a fee payer', async () => {
      const [custodyLamports, feePayerLamports] = [localnet.solBalance(custody.publicKey), localnet.solBalance(feePayer.publicKey)];

      await land(order(700_000n, 300_000n), null);

      expect(localnet.usdcBalance(agent.publicKey)).toBe(700_000n);
      expect(localnet.usdcBalance(recipient.publicKey)).toBe(300_000n);
      expect(localnet.solBalance(custody.publicKey)).toBeLessThan(custodyLamports);
      expect(localnet.solBalance(feePayer.publicKey)).toBe(feePayerLamports);
    });

    it("leaves the agent's token account alone on a zero refund, and pays into existing accounts", async () => {
      localnet.createTokenAccount(recipient.publicKey);

      await land(order(0n, 1_000_000n), feePayer.publicKey.toBase58());

      expect(hasTokenAccount(agent)).toBe(false);
      expect(localnet.usdcBalance(recipient.publicKey)).toBe(1_000_000n);
      await land(order(250_000n, 0n), feePayer.publicKey.toBase58());
      await land(order(150_000n, 0n), feePayer.publicKey.toBase58());
      expect(localnet.usdcBalance(agent.publicKey)).toBe(400_000n);
      expect(localnet.usdcBalance(recipient.publicKey)).toBe(1_000_000n);
    });

    it('makes closes of equal amounts to one agent two transactions, one per channel', async () => {
      const first = await chain.closeTransaction(order(1n, 1n, 'channel-a'), null);
      const second = await chain.closeTransaction(order(1n, 1n, 'channel-b'), null);
      expect(first?.signature).not.toBe(second?.signature);
    });

    it('refuses a close that moves nothing', async () => {
      await expect(chain.closeTransaction(order(0n, 0n), null)).rejects.toThrow();
    });

    it('builds nothing for a fee payer that is not ours', async () => {
      expect(await chain.closeTransaction(order(1n, 1n), Keypair.generate().publicKey.toBase58())).toBeNull();
    });
  });
});
