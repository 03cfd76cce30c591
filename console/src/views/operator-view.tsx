import { useState } from 'preact/hooks';
import { seg } from '../api';
import { useSession } from '../context';
import { check, ErrorNote, Field, Form, Section, Table, useLoad, when } from '../ui';
import { nameProblem, receiptIdProblem, walletProblem } from '../validate';
import type { List, Org } from '../wire';

/** The admin token's view: every org (opened to manage it), the gateway's and escrow's health, a receipt by id. */
export function OperatorView({ onOpenOrg }: { onOpenOrg: (orgId: string) => void }) {
  const { api } = useSession();
  const orgs = useLoad(() => api<List<Org>>('GET', '/v1/orgs'), []);
  const [name, setName] = useState('');
  const [owner, setOwner] = useState('');
  return (
    <>
      <h1>Operator</h1>
      <Section title="Orgs">
        <ErrorNote error={orgs.error} />
        <Table
          caption="Every org, oldest first"
          head={['Name', 'Id', 'Created', '']}
          rows={(orgs.data?.data ?? []).map((org) => [
            org.name,
            <code>{org.id}</code>,
            when(org.created_at),
            <button type="button" aria-label={`Open org ${org.name}`} onClick={() => onOpenOrg(org.id)}>
              Open
            </button>,
          ])}
        />
        <Form
          label="Create an org"
          submitLabel="Create org"
          submit={async () => {
            check(nameProblem(name));
            check(walletProblem(owner));
            await api('POST', '/v1/orgs', { name, owner_wallet: owner });
            setName('');
            setOwner('');
            orgs.reload();
          }}
        >
          <Field label="Org name" value={name} onInput={setName} />
          <Field label="Owner wallet" value={owner} onInput={setOwner} />
        </Form>
      </Section>
      <div class="row">
        <Health title="Gateway health" path="/health" />
        <Health title="Escrow health" path="/v1/escrow/health" />
      </div>
      <ReceiptLookup />
    </>
  );
}

function Health({ title, path }: { title: string; path: string }) {
  const { api } = useSession();
  const health = useLoad(() => api<Record<string, unknown>>('GET', path), [path]);
  return (
    <Section title={title}>
      <ErrorNote error={health.error} />
      {health.data && <Fields value={health.data} />}
      <button type="button" onClick={health.reload}>
        Refresh
      </button>
    </Section>
  );
}

function ReceiptLookup() {
  const { api } = useSession();
  const [id, setId] = useState('');
  const [receipt, setReceipt] = useState<Record<string, unknown> | null>(null);
  return (
    <Section title="Receipt">
      <Form
        label="Look up a receipt"
        submitLabel="Look up"
        submit={async () => {
          setReceipt(null);
          check(receiptIdProblem(id));
          setReceipt(await api<Record<string, unknown>>('GET', `/v1/receipts/${seg(id.trim())}`));
        }}
      >
        <Field label="Receipt id" value={id} onInput={setId} />
      </Form>
      {receipt && <Fields value={receipt} />}
    </Section>
  );
}

/** An object's fields as a definition list; nested values as their JSON text. */
function Fields({ value }: { value: Record<string, unknown> }) {
  return (
    <dl class="fields">
      {Object.entries(value).map(([key, field]) => (
        <>
          <dt>{key}</dt>
          <dd>{typeof field === 'object' && field !== null ? <code class="json">{JSON.stringify(field)}</code> : String(field)}</dd>
        </>
      ))}
    </dl>
  );
}
