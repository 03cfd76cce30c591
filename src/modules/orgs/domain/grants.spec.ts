import { mayGrantMemberRole, mayManageKeyRole } from './grants';
import { ORG_ROLES, roleAtLeast } from './org-role';

describe('who may grant which role', () => {
  it('members: the admin token (null) and owners grant any role; admins only member; members are stopped by the route guard before this', () => {
    for (const role of ORG_ROLES) {
      expect(mayGrantMemberRole(null, role)).toBe(true);
      expect(mayGrantMemberRole('owner', role)).toBe(true);
    }
    expect(mayGrantMemberRole('admin', 'member')).toBe(true);
    expect(mayGrantMemberRole('admin', 'admin')).toBe(false);
    expect(mayGrantMemberRole('admin', 'owner')).toBe(false);
  });

  it('keys: a caller issues and revokes keys up to its own role', () => {
    expect(mayManageKeyRole('admin', 'admin')).toBe(true);
    expect(mayManageKeyRole('admin', 'owner')).toBe(false);
    expect(mayManageKeyRole('owner', 'owner')).toBe(true);
    expect(mayManageKeyRole(null, 'owner')).toBe(true);
  });

  it('ranks roles member < admin < owner', () => {
    expect(roleAtLeast('owner', 'admin')).toBe(true);
    expect(roleAtLeast('member', 'admin')).toBe(false);
  });
});
