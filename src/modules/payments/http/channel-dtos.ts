import { IsOptional, IsString, Matches } from 'class-validator';
import { WALLET_ADDRESS } from '../../orgs/domain/org';

const WALLET_MESSAGE = 'must be a base58 public key, 32 to 44 characters';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const SIGNATURE = /^[A-Za-z0-9+/]{86}==$/;

/** POST /v1/channel/open: no amount, the credit is the verified transfer (docs/decisions.md, "Channels"). */
export class OpenChannelDto {
  @IsString()
  @Matches(WALLET_ADDRESS, { message: `agent_wallet ${WALLET_MESSAGE}` })
  agent_wallet!: string;

  @IsOptional()
  @IsString()
  @Matches(WALLET_ADDRESS, { message: `session_key ${WALLET_MESSAGE}` })
  session_key?: string;

  @IsString()
  @Matches(BASE64, { message: 'funding_tx must be the base64 of a signed USDC TransferChecked to custody' })
  funding_tx!: string;
}

/** POST /v1/channel/close: the session key's signature over the close message; no destination (the refund goes to the agent wallet). */
export class CloseChannelDto {
  @IsString()
  channel_id!: string;

  @IsString()
  @Matches(SIGNATURE, { message: 'signature must be the base64 of a 64-byte ed25519 signature over the close message' })
  signature!: string;
}
