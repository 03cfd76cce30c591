import type { OrgRole } from '../domain/org-role';

/** Who an org API key speaks for. */
export interface OrgKeyHolder {
  keyId: string;
  orgId: string;
  role: OrgRole;
}

/** Org API keys, kept only as the SHA-256 of the key; a revoked key is not found. */
export abstract class OrgApiKeys {
  abstract findActive(keyHash: Buffer): Promise<OrgKeyHolder | null>;
}
