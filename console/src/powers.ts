import { mayGrantMemberRole, mayManageKeyRole } from '../../src/modules/orgs/domain/grants';
import { ORG_ROLES, roleAtLeast, type OrgRole } from '../../src/modules/orgs/domain/org-role';
import type { Who } from './wire';

/**
 * What the signed-in credential may do, by the API's own rules (docs/decisions.md, "Enterprise"):
 * the console offers nothing else, and the API still decides.
 */
export interface Powers {
  /** Create teams, add members and team wallets. */
  manage: boolean;
  /** Issue, list and revoke keys; read and set team budgets. */
  keysAndBudgets: boolean;
  audit: boolean;
  /** The admin token: every org, wallet budgets, the operator's audit, health and receipts. */
  operator: boolean;
  memberRoles: OrgRole[];
  keyRoles: OrgRole[];
}

export function powersOf(who: Who): Powers {
  const role = who.kind === 'admin' ? null : who.role;
  const atLeast = (required: OrgRole) => role === null || roleAtLeast(role, required);
  return {
    manage: atLeast('admin'),
    keysAndBudgets: atLeast('admin'),
    audit: atLeast('owner'),
    operator: role === null,
    memberRoles: atLeast('admin') ? ORG_ROLES.filter((r) => mayGrantMemberRole(role, r)) : [],
    keyRoles: atLeast('admin') ? ORG_ROLES.filter((r) => mayManageKeyRole(role, r)) : [],
  };
}
