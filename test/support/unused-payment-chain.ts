import { PaymentChain } from '../../src/modules/payments/ports/payment-chain';

/** A PaymentChain whose every method fails: unit specs extend it and answer only the calls they expect. */
export class UnusedPaymentChain extends PaymentChain {
  verifyTransfer(..._args: unknown[]): never {
    throw new Error('not used');
  }
  blockhashValid(..._args: unknown[]): Promise<boolean> {
    throw new Error('not used');
  }
  simulate(..._args: unknown[]): never {
    throw new Error('not used');
  }
  latestBlockhash(..._args: unknown[]): ReturnType<PaymentChain['latestBlockhash']> {
    throw new Error('not used');
  }
  blockHeight(..._args: unknown[]): Promise<number> {
    throw new Error('not used');
  }
  lamports(..._args: unknown[]): never {
    throw new Error('not used');
  }
  prepare(..._args: unknown[]): ReturnType<PaymentChain['prepare']> {
    throw new Error('not used');
  }
  send(..._args: unknown[]): ReturnType<PaymentChain['send']> {
    throw new Error('not used');
  }
  confirm(..._args: unknown[]): never {
    throw new Error('not used');
  }
  status(..._args: unknown[]): ReturnType<PaymentChain['status']> {
    throw new Error('not used');
  }
  statuses(..._args: unknown[]): ReturnType<PaymentChain['statuses']> {
    throw new Error('not used');
  }
  slot(..._args: unknown[]): ReturnType<PaymentChain['slot']> {
    throw new Error('not used');
  }
  life(..._args: unknown[]): ReturnType<PaymentChain['life']> {
    throw new Error('not used');
  }
}
