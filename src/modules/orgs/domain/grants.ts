import { roleAtLeast, type OrgRole } from './org-role';

/**
 * Who may hand out which role (docs/decisions.md, "Enterprise"): the admin token (null: above all
 * orgs) and owners any role; admins only `member` to members, and `member` or `admin` to keys.
 */
export function mayGrantMemberRole(granter: OrgRole | null, role: OrgRole): boolean {
  return granter === null || granter === 'owner' || role === 'member';
}

/** A key may be issued or revoked by a caller whose role is at least the key's. */
export function mayManageKeyRole(granter: OrgRole | null, role: OrgRole): boolean {
  return granter === null || roleAtLeast(granter, role);
}
