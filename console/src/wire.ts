import type { OrgRole } from '../../src/modules/orgs/domain/org-role';

/** The API's answers, as the console reads them (the OpenAPI document at /openapi.json has them all). */
export type Who = { kind: 'admin' } | { kind: 'org_key'; org_id: string; key_id: string; role: OrgRole };
export interface List<T> {
  object: 'list';
  data: T[];
  total: number;
}
export interface Org {
  id: string;
  name: string;
  created_at: string;
}
export interface Team {
  id: string;
  org_id: string;
  name: string;
  created_at: string;
}
export interface Member {
  wallet_address: string;
  role: OrgRole;
}
export interface TeamWallet {
  wallet_address: string;
  consented: boolean;
}
export interface ApiKey {
  id: string;
  name: string;
  role: OrgRole;
  created_at: string;
  revoked_at: string | null;
}
export interface IssuedKey extends Omit<ApiKey, 'revoked_at'> {
  key: string;
}
export interface Budget {
  hourly: number | null;
  daily: number | null;
  monthly: number | null;
  hourly_spend: string;
  daily_spend: string;
  monthly_spend: string;
}
export interface Usage {
  requests: number;
  spend: string;
  tokens: number;
}
export interface WalletStats extends Usage {
  by_model: Array<Usage & { model: string }>;
  by_day: Array<Usage & { date: string }>;
}
export interface AuditEntry {
  id: string;
  actor: string;
  action: string;
  before: unknown;
  after: unknown;
  at: string;
}
