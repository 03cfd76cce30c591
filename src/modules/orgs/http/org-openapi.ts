import { INTEGER, listOf, nullable, object, STRING, TIMESTAMP, USDC, type JsonSchema } from '../../../http/openapi/wire-schemas';
import { ORG_ROLES } from '../domain/org-role';

/** The enterprise resources of spec 2.11 as the routes answer them, for the OpenAPI document. */
const ROLE: JsonSchema = { type: 'string', enum: [...ORG_ROLES] };
const WALLET: JsonSchema = { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' };

export const ORG: JsonSchema = object({ id: STRING, name: STRING, created_at: TIMESTAMP, updated_at: TIMESTAMP });
export const MEMBER: JsonSchema = object({ wallet_address: WALLET, role: ROLE });
export const TEAM: JsonSchema = object({ id: STRING, org_id: STRING, name: STRING, created_at: TIMESTAMP, updated_at: TIMESTAMP });
export const TEAM_WALLET: JsonSchema = object({
  wallet_address: WALLET,
  consented: { type: 'boolean', description: "whether the wallet's owner consented (its signature, or the admin token): only then do the team's budget and the org's stats cover it" },
});
export const API_KEY: JsonSchema = object({ id: STRING, name: STRING, role: ROLE, created_at: TIMESTAMP, revoked_at: nullable(TIMESTAMP) });
/** An issued key: the secret is shown this once. */
export const ISSUED_KEY: JsonSchema = object({ id: STRING, name: STRING, role: ROLE, created_at: TIMESTAMP, key: { type: 'string', description: 'the bearer secret, shown only here' } });
const LIMIT = { type: ['number', 'null'], description: 'USDC; null leaves the window uncapped' };
export const BUDGET: JsonSchema = object({ hourly: LIMIT, daily: LIMIT, monthly: LIMIT, hourly_spend: USDC, daily_spend: USDC, monthly_spend: USDC });
export const AUDIT_PAGE: JsonSchema = {
  ...listOf(
    object({
      id: STRING,
      actor: { type: 'string', description: 'admin, key:<key id>, or wallet:<address> (a wallet leaving a team on its own word)' },
      action: STRING,
      before: { type: ['object', 'null'] },
      after: { type: ['object', 'null'] },
      at: TIMESTAMP,
    }),
  ),
  description: 'oldest first; `page` (from 1) pages through it',
};
const USAGE = { requests: INTEGER, spend: USDC, tokens: INTEGER };
export const WALLET_STATS: JsonSchema = object({
  ...USAGE,
  by_model: { type: 'array', items: object({ model: STRING, ...USAGE }) },
  by_day: { type: 'array', items: object({ date: { type: 'string', format: 'date' }, ...USAGE }) },
});
export const ORGS = listOf(ORG);
export const MEMBERS = listOf(MEMBER);
/** Who the credential of a request is: the admin token, or an org key with its org and role. */
export const CALLER: JsonSchema = {
  oneOf: [object({ kind: { type: 'string', const: 'admin' } }), object({ kind: { type: 'string', const: 'org_key' }, org_id: STRING, key_id: STRING, role: ROLE })],
};
export const TEAMS = listOf(TEAM);
export const TEAM_WALLETS = listOf(TEAM_WALLET);
export const API_KEYS = listOf(API_KEY);
