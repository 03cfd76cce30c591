import { PACKET_DATA_SIZE, VersionedTransaction } from '@solana/web3.js';
import { isCanonicalBase64 } from '../../../libs/x402/base64-json';
import { PaymentRejection } from '../../modules/payments/domain/exact-payment';

const SIGNATURE_BYTES = 64;
/** Base64 of the largest transaction the cluster accepts (one packet). */
const MAX_BASE64_LENGTH = Math.ceil(PACKET_DATA_SIZE / 3) * 4;

export interface PaymentTransactionWire {
  transaction: VersionedTransaction;
  /** The message as the signatures cover it and as it will be broadcast. */
  messageBytes: Uint8Array;
}

/**
 * A legacy or v0 transaction from its base64 wire form; throws PaymentRejection('undecodable').
 * The wire message must be exactly web3.js's re-encoding of it (no trailing bytes, no non-minimal
 * lengths), so the bytes whose signatures are checked are the bytes that get broadcast.
 */
export function decodePaymentTransaction(transactionBase64: string): PaymentTransactionWire {
  // Buffer.from skips characters that are not base64 instead of failing: check the form first.
  if (transactionBase64.length > MAX_BASE64_LENGTH || !isCanonicalBase64(transactionBase64)) {
    throw new PaymentRejection('undecodable', 'not base64 of at most one packet');
  }
  const wire = Buffer.from(transactionBase64, 'base64');
  let transaction: VersionedTransaction;
  let messageBytes: Uint8Array;
  try {
    transaction = VersionedTransaction.deserialize(wire);
    messageBytes = transaction.message.serialize();
  } catch {
    throw new PaymentRejection('undecodable', 'not a Solana transaction');
  }
  if (transaction.version !== 'legacy' && transaction.version !== 0) {
    throw new PaymentRejection('undecodable', `transaction version ${String(transaction.version)}`);
  }
  const count = transaction.signatures.length;
  const messageOffset = (count < 0x80 ? 1 : count < 0x4000 ? 2 : 3) + count * SIGNATURE_BYTES;
  if (wire.length !== messageOffset + messageBytes.length || Buffer.compare(wire.subarray(messageOffset), messageBytes) !== 0) {
    throw new PaymentRejection('undecodable', 'non-canonical encoding');
  }
  return { transaction, messageBytes };
}
