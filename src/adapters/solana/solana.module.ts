import { Global, Module } from '@nestjs/common';
import { GatewayConfig } from '../../config/gateway-config';
import { ChainRpcProbe, PROBE_TIMEOUT_MS } from '../../modules/ops/ports/dependency-probe';
import { FeePayers } from '../../modules/payments/ports/fee-payers';
import { PaymentChain } from '../../modules/payments/ports/payment-chain';
import { KeypairFeePayers } from './keypair-fee-payers';
import { SolanaPaymentChain } from './solana-payment-chain';
import { SolanaRpcProbe } from './solana-rpc-probe';

/** The chain ports on the Solana JSON-RPC endpoint of the configuration, with the gateway's fee payer keys. */
@Global()
@Module({
  providers: [
    { provide: FeePayers, useFactory: (config: GatewayConfig) => new KeypairFeePayers(config.solana.feePayerKeys), inject: [GatewayConfig] },
    { provide: PaymentChain, useFactory: (config: GatewayConfig, feePayers: FeePayers) => new SolanaPaymentChain(config.solana.rpcUrl, feePayers), inject: [GatewayConfig, FeePayers] },
    { provide: ChainRpcProbe, useFactory: (config: GatewayConfig) => new SolanaRpcProbe(config.solana.rpcUrl, PROBE_TIMEOUT_MS), inject: [GatewayConfig] },
  ],
  exports: [FeePayers, PaymentChain, ChainRpcProbe],
})
export class SolanaModule {}
