import type { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import type { AccountInfoBytes, LiteSVM } from 'litesvm';
import { choiceOption, RpcError } from './json-rpc';
import { parsedTokenData, type ParsedTokenDataJson } from './token-accounts';

export const ACCOUNT_ENCODINGS = ['binary', 'base58', 'base64', 'jsonParsed'] as const;
export type AccountEncoding = (typeof ACCOUNT_ENCODINGS)[number];

/** How an account is to be rendered: the `encoding` and `dataSlice` options of getAccountInfo and friends. */
export interface AccountRendering {
  encoding: AccountEncoding;
  dataSlice?: { offset: number; length: number };
}

/** Solana's `UiAccount`. `binary` (the validator's default) renders the data as a bare base58 string. */
export interface AccountJson {
  data: string | [string, 'base58' | 'base64'] | ParsedTokenDataJson;
  executable: boolean;
  lamports: number;
  owner: string;
  rentEpoch: number;
  space: number;
}

// The validator refuses base58 beyond this size: base58 encoding is quadratic.
const MAX_BASE58_BYTES = 128;

export function accountRendering(config: Record<string, unknown>): AccountRendering {
  const encoding = choiceOption(config, 'encoding', ACCOUNT_ENCODINGS, 'binary');
  const slice = config.dataSlice;
  if (slice === undefined || slice === null) return { encoding };
  const { offset, length } = slice as { offset?: unknown; length?: unknown };
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length)) {
    throw RpcError.invalidParams('dataSlice needs integer offset and length');
  }
  return { encoding, dataSlice: { offset: offset as number, length: length as number } };
}

export function encodeAccount(svm: LiteSVM, address: PublicKey, info: AccountInfoBytes, rendering: AccountRendering): AccountJson {
  const fields = {
    executable: info.executable,
    lamports: info.lamports,
    owner: info.owner.toBase58(),
    rentEpoch: info.rentEpoch ?? 0,
    space: info.data.length,
  };
  const parsed = rendering.encoding === 'jsonParsed' && !rendering.dataSlice ? parsedTokenData(svm, address, info) : null;
  if (parsed) return { data: parsed, ...fields };
  const { offset, length } = rendering.dataSlice ?? { offset: 0, length: info.data.length };
  const bytes = info.data.subarray(offset, offset + length);
  if (rendering.encoding === 'base64' || rendering.encoding === 'jsonParsed') {
    return { data: [Buffer.from(bytes).toString('base64'), 'base64'], ...fields };
  }
  if (bytes.length > MAX_BASE58_BYTES) {
    throw new RpcError(-32600, 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
  }
  const base58 = bs58.encode(bytes);
  return { data: rendering.encoding === 'binary' ? base58 : [base58, 'base58'], ...fields };
}
