/** Roles in an org, lowest first (spec 2.11): member reads, admin manages, owner does everything. */
export const ORG_ROLES = ['member', 'admin', 'owner'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/** Whether `role` may do what `required` may. */
export function roleAtLeast(role: OrgRole, required: OrgRole): boolean {
  return ORG_ROLES.indexOf(role) >= ORG_ROLES.indexOf(required);
}

/** `gwk_` and 43 base64url characters: 32 random bytes (docs/decisions.md, "Enterprise authentication"). */
export const ORG_API_KEY = /^gwk_[A-Za-z0-9_-]{43}$/;
