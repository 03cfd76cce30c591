export { MAINNET_USDC_MINT } from './chain-helpers';
export type { LatestBlockhash, SentTransaction } from './local-chain';
export { Localnet, MAINNET_GENESIS_HASH, startLocalnet, type AddressLike, type LocalnetOptions } from './localnet';
export type { TransactionErrorJson } from './transaction-errors';
