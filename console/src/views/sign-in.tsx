import { useState } from 'preact/hooks';
import { apiWith } from '../api';
import { check, ErrorNote, Field, Form } from '../ui';
import { credentialProblem } from '../validate';
import type { Who } from '../wire';

/** Sign-in with an org API key or the admin token; GET /v1/whoami says which it is. */
export function SignIn({ onSignedIn, notice }: { onSignedIn: (credential: string, who: Who) => void; notice: unknown }) {
  const [credential, setCredential] = useState('');
  return (
    <main class="sign-in">
      <h1>Gateway console</h1>
      <p>Sign in with an org API key (gwk_…) or the gateway's admin token. It is kept in this tab only and forgotten when the tab closes.</p>
      <ErrorNote error={notice} />
      <Form
        label="Sign in"
        submitLabel="Sign in"
        submit={async () => {
          const token = credential.trim();
          check(credentialProblem(token));
          onSignedIn(token, await apiWith(token)<Who>('GET', '/v1/whoami'));
        }}
      >
        <Field label="API key or admin token" type="password" value={credential} onInput={setCredential} autoComplete="off" />
      </Form>
    </main>
  );
}
