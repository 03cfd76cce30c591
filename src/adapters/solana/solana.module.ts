import { Global, Module, type DynamicModule, type Provider } from '@nestjs/common';
import type { ChannelConfig, GatewayConfig, SolanaConfig } from '../../config/gateway-config';
import { ChainRpcProbe, PROBE_TIMEOUT_MS } from '../../modules/ops/ports/dependency-probe';
import { ChannelChain } from '../../modules/payments/ports/channel-chain';
import { EscrowChain } from '../../modules/payments/ports/escrow-chain';
import { FeePayers } from '../../modules/payments/ports/fee-payers';
import { PaymentChain } from '../../modules/payments/ports/payment-chain';
import { KeypairFeePayers } from './keypair-fee-payers';
import { SolanaChannelChain } from './solana-channel-chain';
import { SolanaEscrowChain } from './solana-escrow-chain';
import { SolanaPaymentChain } from './solana-payment-chain';
import { SolanaRpcProbe } from './solana-rpc-probe';

/**
 * The escrow chain, only when both the program id and the provider key are configured: without it
 * the escrow scheme is off, and its consumers (which inject it as optional) see no provider at all.
 */
function escrowProviders({ rpcUrl, escrowProgramId, escrowProviderKey, usdcMint }: SolanaConfig): Provider[] {
  if (escrowProgramId === null || escrowProviderKey === null) return [];
  return [
    {
      provide: EscrowChain,
      useFactory: (feePayers: FeePayers) => new SolanaEscrowChain(rpcUrl, escrowProgramId, usdcMint, escrowProviderKey.reveal(), feePayers),
      inject: [FeePayers],
    },
  ];
}

/** The custody wallet, only when its key is configured: without it channels are off, and their consumers (which inject it as optional) see no provider. */
function channelProviders({ rpcUrl, usdcMint }: SolanaConfig, { custodyKey }: ChannelConfig): Provider[] {
  if (custodyKey === null) return [];
  return [
    {
      provide: ChannelChain,
      useFactory: (feePayers: FeePayers) => new SolanaChannelChain(rpcUrl, usdcMint, custodyKey.reveal(), feePayers),
      inject: [FeePayers],
    },
  ];
}

/** The chain ports on the Solana JSON-RPC endpoint of the configuration, with the gateway's fee payer keys. */
@Global()
@Module({})
export class SolanaModule {
  static forRoot({ solana, channels }: GatewayConfig): DynamicModule {
    const escrow = escrowProviders(solana);
    const channel = channelProviders(solana, channels);
    return {
      module: SolanaModule,
      providers: [
        { provide: FeePayers, useFactory: () => new KeypairFeePayers(solana.feePayerKeys) },
        { provide: PaymentChain, useFactory: (feePayers: FeePayers) => new SolanaPaymentChain(solana.rpcUrl, feePayers), inject: [FeePayers] },
        { provide: ChainRpcProbe, useFactory: () => new SolanaRpcProbe(solana.rpcUrl, PROBE_TIMEOUT_MS) },
        ...escrow,
        ...channel,
      ],
      exports: [FeePayers, PaymentChain, ChainRpcProbe, ...(escrow.length > 0 ? [EscrowChain] : []), ...(channel.length > 0 ? [ChannelChain] : [])],
    };
  }
}
