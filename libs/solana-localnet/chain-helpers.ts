import { AccountLayout, getAssociatedTokenAddressSync, MINT_SIZE, MintLayout, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import type { LiteSVM } from 'litesvm';
import { decodeMint, decodeTokenAccount, encodeTokenAccount } from './token-accounts';

/** The mainnet USDC mint; the x402 client knows it, so the localnet puts its USDC there by default. */
export const MAINNET_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

// Token state is written straight into accounts (as a snapshot of a real chain would hold it), so
// setting up balances costs no transactions, fees or blockhash-bound signatures.

function writeTokenProgramAccount(svm: LiteSVM, address: PublicKey, data: Buffer): void {
  const lamports = Number(svm.minimumBalanceForRentExemption(BigInt(data.length)));
  svm.setAccount(address, { lamports, data, owner: TOKEN_PROGRAM_ID, executable: false, rentEpoch: 0 });
}

/** Places an initialised SPL Token mint with no supply and no freeze authority at `mint`. */
export function writeMint(svm: LiteSVM, mint: PublicKey, mintAuthority: PublicKey, decimals: number): void {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 1,
      mintAuthority,
      supply: 0n,
      decimals,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    data,
  );
  writeTokenProgramAccount(svm, mint, data);
}

/** The owner's associated token account for `mint`, created empty when absent. */
export function ensureTokenAccount(svm: LiteSVM, mint: PublicKey, owner: PublicKey): PublicKey {
  const address = getAssociatedTokenAddressSync(mint, owner, true);
  const existing = svm.getAccount(address);
  if (existing) {
    if (!decodeTokenAccount(address, existing)?.mint.equals(mint)) {
      throw new Error(`${address.toBase58()} exists and is not a token account of ${mint.toBase58()}`);
    }
    return address;
  }
  const data = Buffer.from(encodeTokenAccount({ mint, owner, amount: 0n }));
  writeTokenProgramAccount(svm, address, data);
  return address;
}

/** Mints `amount` into the owner's associated token account (creating it) and raises the supply to match. */
export function mintTokens(svm: LiteSVM, mint: PublicKey, owner: PublicKey, amount: bigint): PublicKey {
  const mintAccount = svm.getAccount(mint);
  if (!mintAccount || !decodeMint(mint, mintAccount)) throw new Error(`no token mint at ${mint.toBase58()}`);
  const address = ensureTokenAccount(svm, mint, owner);
  const tokenAccount = svm.getAccount(address);
  if (!tokenAccount) throw new Error(`token account ${address.toBase58()} vanished`);

  const mintData = Buffer.from(mintAccount.data);
  const mintState = MintLayout.decode(mintData);
  MintLayout.encode({ ...mintState, supply: mintState.supply + amount }, mintData);
  svm.setAccount(mint, { ...mintAccount, data: mintData });

  const accountData = Buffer.from(tokenAccount.data);
  const accountState = AccountLayout.decode(accountData);
  AccountLayout.encode({ ...accountState, amount: accountState.amount + amount }, accountData);
  svm.setAccount(address, { ...tokenAccount, data: accountData });
  return address;
}

/** The owner's balance in its associated token account for `mint`; 0n when there is none. */
export function tokenBalance(svm: LiteSVM, mint: PublicKey, owner: PublicKey): bigint {
  const address = getAssociatedTokenAddressSync(mint, owner, true);
  return decodeTokenAccount(address, svm.getAccount(address))?.amount ?? 0n;
}
