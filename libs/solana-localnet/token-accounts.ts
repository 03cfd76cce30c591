import { ACCOUNT_SIZE, AccountLayout, AccountState, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, unpackAccount, unpackMint, type Account, type Mint } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import type { AccountInfoBytes, LiteSVM } from 'litesvm';

/** Solana's `UiTokenAmount`: the raw amount and its decimal renderings. */
export interface TokenAmountJson {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

/** A `jsonParsed` account body for the token programs, as the RPC returns it. */
export interface ParsedTokenDataJson {
  program: 'spl-token' | 'spl-token-2022';
  parsed: { type: 'account' | 'mint'; info: Record<string, unknown> };
  space: number;
}

function tokenProgramOf(info: AccountInfoBytes): PublicKey | null {
  return [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID].find((program) => program.equals(info.owner)) ?? null;
}

function asBufferInfo(info: AccountInfoBytes): Parameters<typeof unpackAccount>[1] {
  return { ...info, data: Buffer.from(info.data) };
}

/** The token account at `address`, or null when the account is not an initialised token account. */
export function decodeTokenAccount(address: PublicKey, info: AccountInfoBytes | null): Account | null {
  const program = info && tokenProgramOf(info);
  if (!info || !program) return null;
  try {
    return unpackAccount(address, asBufferInfo(info), program);
  } catch {
    return null; // a mint or another token-program account
  }
}

export function decodeMint(address: PublicKey, info: AccountInfoBytes | null): Mint | null {
  const program = info && tokenProgramOf(info);
  if (!info || !program) return null;
  try {
    return unpackMint(address, asBufferInfo(info), program);
  } catch {
    return null;
  }
}

export function mintDecimals(svm: LiteSVM, mint: PublicKey): number | null {
  return decodeMint(mint, svm.getAccount(mint))?.decimals ?? null;
}

export function tokenAmountJson(amount: bigint, decimals: number): TokenAmountJson {
  const scale = 10n ** BigInt(decimals);
  const fraction = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  const uiAmountString = fraction ? `${amount / scale}.${fraction}` : `${amount / scale}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

/** The `jsonParsed` rendering of a token account or mint; null for anything else (the RPC then falls back to base64). */
export function parsedTokenData(svm: LiteSVM, address: PublicKey, info: AccountInfoBytes): ParsedTokenDataJson | null {
  const program = tokenProgramOf(info);
  if (!program) return null;
  const envelope = (type: 'account' | 'mint', parsedInfo: Record<string, unknown>): ParsedTokenDataJson => ({
    program: program.equals(TOKEN_PROGRAM_ID) ? 'spl-token' : 'spl-token-2022',
    parsed: { type, info: parsedInfo },
    space: info.data.length,
  });
  const mint = decodeMint(address, info);
  if (mint) {
    return envelope('mint', {
      decimals: mint.decimals,
      freezeAuthority: mint.freezeAuthority?.toBase58() ?? null,
      isInitialized: mint.isInitialized,
      mintAuthority: mint.mintAuthority?.toBase58() ?? null,
      supply: mint.supply.toString(),
    });
  }
  const account = decodeTokenAccount(address, info);
  const decimals = account && mintDecimals(svm, account.mint);
  if (!account || decimals === null) return null;
  return envelope('account', {
    isNative: account.isNative,
    mint: account.mint.toBase58(),
    owner: account.owner.toBase58(),
    state: account.isFrozen ? 'frozen' : 'initialized',
    tokenAmount: tokenAmountJson(account.amount, decimals),
    ...(account.delegate && {
      delegate: account.delegate.toBase58(),
      delegatedAmount: tokenAmountJson(account.delegatedAmount, decimals),
    }),
    ...(account.closeAuthority && { closeAuthority: account.closeAuthority.toBase58() }),
    ...(account.rentExemptReserve !== null && { rentExemptReserve: tokenAmountJson(account.rentExemptReserve, decimals) }),
  });
}

/** An initialised SPL Token account's bytes: no delegate, no close authority. */
export function encodeTokenAccount({ mint, owner, amount }: { mint: PublicKey; owner: PublicKey; amount: bigint }): Uint8Array {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint,
      owner,
      amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: AccountState.Initialized,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  return new Uint8Array(data);
}
