import { useState } from 'preact/hooks';
import { seg } from '../api';
import { useSession } from '../context';
import { ErrorNote, Section, Table, useLoad, when } from '../ui';
import type { AuditEntry, List } from '../wire';

/** Entries a page of the audit (src/modules/orgs/application/org-directory.ts, AUDIT_PAGE_SIZE). */
const PAGE_SIZE = 50;

/** The org's audit (owner keys and the admin token) and the operator's (the admin token), paged. */
export function AuditView({ orgId }: { orgId: string | null }) {
  const { powers } = useSession();
  return (
    <>
      <h1>Audit</h1>
      {orgId !== null && <AuditLog title="The org's audit" path={`/v1/orgs/${seg(orgId)}/audit`} />}
      {powers.operator && <AuditLog title="The operator's audit" path="/v1/audit" />}
    </>
  );
}

function AuditLog({ title, path }: { title: string; path: string }) {
  const { api } = useSession();
  const [page, setPage] = useState(1);
  const log = useLoad(() => api<List<AuditEntry>>('GET', `${path}?page=${page}`), [path, page]);
  const pages = Math.max(1, Math.ceil((log.data?.total ?? 0) / PAGE_SIZE));
  const json = (value: unknown) => (value === null ? '' : <code class="json">{JSON.stringify(value)}</code>);
  return (
    <Section title={title}>
      <ErrorNote error={log.error} />
      <Table
        caption={`${title}, page ${page} of ${pages}, oldest first`}
        head={['When', 'Who', 'What', 'Before', 'After']}
        rows={(log.data?.data ?? []).map((entry) => [when(entry.at), entry.actor, entry.action, json(entry.before), json(entry.after)])}
      />
      <nav class="pager" aria-label={`${title} pages`}>
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          Next page
        </button>
      </nav>
    </Section>
  );
}
