import { fieldError } from '../../../errors/gateway-error';
import { WALLET_ADDRESS } from '../domain/org';

/** A malformed wallet in a path is a 400, not a 404: the client wrote it wrong. */
export function walletOf(wallet: string): string {
  if (!WALLET_ADDRESS.test(wallet)) throw fieldError('request.invalid_path', 'wallet', 'wallet must be a base58 address of 32 to 44 characters');
  return wallet;
}
