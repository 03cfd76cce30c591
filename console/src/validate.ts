import { CONSENT_SIGNATURE, isResourceName, NAME_LENGTH, WALLET_ADDRESS } from '../../src/modules/orgs/domain/org';
import { STATS_DAYS } from '../../src/modules/orgs/domain/wallet-stats';

/** The API's own rules, checked before a form is sent: each returns the problem, or null. The API still decides. */
export const nameProblem = (value: string): string | null => (isResourceName(value) ? null : `a name is ${NAME_LENGTH.min} to ${NAME_LENGTH.max} characters without control characters`);

export const walletProblem = (value: string): string | null => (WALLET_ADDRESS.test(value) ? null : 'a wallet address is base58, 32 to 44 characters');

export const consentProblem = (value: string): string | null =>
  value === '' || CONSENT_SIGNATURE.test(value) ? null : "the consent signature is the base64 of the wallet's 64-byte ed25519 signature";

/** A budget limit as the API takes it: blank for uncapped, else USDC with at most 6 decimals (src/modules/orgs/http/budget-dto.ts). */
const USDC = /^\d{1,15}(?:\.\d{1,6})?$/;
export const limitProblem = (value: string): string | null => (value.trim() === '' || USDC.test(value.trim()) ? null : 'a limit is a non-negative USDC amount with at most 6 decimals, or blank');

export const daysProblem = (value: number): string | null =>
  Number.isInteger(value) && value >= STATS_DAYS.min && value <= STATS_DAYS.max ? null : `days is a whole number from ${STATS_DAYS.min} to ${STATS_DAYS.max}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const receiptIdProblem = (value: string): string | null => (UUID.test(value.trim()) ? null : 'a receipt id is a UUID');

export const credentialProblem = (value: string): string | null => (value.trim().length >= 16 ? null : 'an org API key (gwk_…) or the admin token, at least 16 characters');
