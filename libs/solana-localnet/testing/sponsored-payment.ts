import { Keypair, LAMPORTS_PER_SOL, type PublicKey } from '@solana/web3.js';
import type { Localnet } from '../localnet';

/** The wallets of a sponsored USDC payment: the payer holds USDC only, the fee payer the SOL for the fee. */
export interface SponsoredPayment {
  mint: PublicKey;
  payer: Keypair;
  recipient: Keypair;
  feePayer: Keypair;
}

/**
 * Mints USDC on the localnet and readies a sponsored payment: `payerUsdc` atomic units for the
 * payer, the recipient's token account, and 1 SOL for the fee payer.
 */
export function fundSponsoredPayment(localnet: Localnet, payerUsdc: bigint): SponsoredPayment {
  const mint = localnet.createUsdcMint();
  const [payer, recipient, feePayer] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
  localnet.fundUsdc(payer.publicKey, payerUsdc);
  localnet.createTokenAccount(recipient.publicKey);
  localnet.airdrop(feePayer.publicKey, LAMPORTS_PER_SOL);
  return { mint, payer, recipient, feePayer };
}
