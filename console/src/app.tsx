import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiWith } from './api';
import { SessionContext, type Session } from './context';
import { powersOf } from './powers';
import { forgetCredential, storeCredential, storedCredential } from './session';
import { AuditView } from './views/audit-view';
import { BudgetsView } from './views/budgets-view';
import { KeysView } from './views/keys-view';
import { OperatorView } from './views/operator-view';
import { OrgView } from './views/org-view';
import { SignIn } from './views/sign-in';
import { UsageView } from './views/usage-view';
import type { Who } from './wire';

type ViewName = 'operator' | 'org' | 'keys' | 'budgets' | 'usage' | 'audit';
const TITLES: Record<ViewName, string> = { operator: 'Operator', org: 'Org', keys: 'Keys', budgets: 'Budgets', usage: 'Usage', audit: 'Audit' };

/** The views a session may open: only what its role may do is offered. */
function viewsOf(session: Session): ViewName[] {
  const { powers, orgId } = session;
  const views: ViewName[] = powers.operator ? ['operator'] : [];
  if (orgId !== null) views.push('org');
  if (orgId !== null && powers.keysAndBudgets) views.push('keys');
  if (powers.keysAndBudgets) views.push('budgets');
  views.push('usage');
  if (powers.audit) views.push('audit');
  return views;
}

/** The view is the URL's fragment (`#keys`): it carries no credential and lets the back button work. */
const viewInUrl = (): string => location.hash.slice(1);

export function App() {
  const [signedIn, setSignedIn] = useState<{ credential: string; who: Who } | null>(null);
  const [notice, setNotice] = useState<unknown>(null);
  const [checking, setChecking] = useState(storedCredential() !== null);
  const [openedOrg, setOpenedOrg] = useState<string | null>(null);
  const [view, setView] = useState(viewInUrl());

  useEffect(() => {
    const onHash = () => setView(viewInUrl());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  // A reload of the tab signs in again with the credential this tab kept.
  useEffect(() => {
    const credential = storedCredential();
    if (credential === null) return;
    apiWith(credential)<Who>('GET', '/v1/whoami')
      .then(
        (who) => setSignedIn({ credential, who }),
        (err: unknown) => {
          forgetCredential();
          setNotice(err);
        },
      )
      .finally(() => setChecking(false));
  }, []);

  const session = useMemo<Session | null>(() => {
    if (!signedIn) return null;
    const { credential, who } = signedIn;
    return { api: apiWith(credential), who, powers: powersOf(who), orgId: who.kind === 'org_key' ? who.org_id : openedOrg };
  }, [signedIn, openedOrg]);

  if (checking) return <p>Signing in…</p>;
  if (!session)
    return (
      <SignIn
        notice={notice}
        onSignedIn={(credential, who) => {
          storeCredential(credential);
          setNotice(null);
          setSignedIn({ credential, who });
        }}
      />
    );

  const views = viewsOf(session);
  const current: ViewName = views.includes(view as ViewName) ? (view as ViewName) : views[0];
  const signOut = () => {
    forgetCredential();
    setSignedIn(null);
    setOpenedOrg(null);
    location.hash = '';
  };
  const { who, orgId } = session;
  return (
    <SessionContext.Provider value={session}>
      <header class="top">
        <strong class="brand">Gateway console</strong>
        <span class="who" data-testid="who">
          {who.kind === 'admin' ? 'Admin token' : `Org key, role ${who.role}`}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav class="tabs" aria-label="Views">
        {views.map((name) => (
          <a href={`#${name}`} aria-current={name === current ? 'page' : undefined}>
            {TITLES[name]}
          </a>
        ))}
      </nav>
      <main class="view">
        {current === 'operator' && (
          <OperatorView
            onOpenOrg={(id) => {
              setOpenedOrg(id);
              location.hash = 'org';
            }}
          />
        )}
        {current === 'org' && orgId !== null && <OrgView orgId={orgId} />}
        {current === 'keys' && orgId !== null && <KeysView orgId={orgId} />}
        {current === 'budgets' && <BudgetsView orgId={orgId} />}
        {current === 'usage' && <UsageView orgId={orgId} />}
        {current === 'audit' && <AuditView orgId={orgId} />}
      </main>
    </SessionContext.Provider>
  );
}
