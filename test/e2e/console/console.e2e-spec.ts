import type { Keypair } from '@solana/web3.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { formatUsdc } from '../../../src/modules/billing/domain/atomic-usdc';
import type { RunningGateway } from '../../../src/gateway';
import { buildConsoleBundle, launchChromium, openView, screenshots, signIn, watchedContext } from '../../support/console-browser';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { chatBody, postChat, quote, specPaymentHeader, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { serviceAvailable } from '../../support/services';
import { fundedPayer, receiptPathOf, until } from '../../support/settlement-probes';
import { pgliteStorage } from '../../support/storage-env';
import { joinConsent } from '../../support/team-consent';

/** Names that would run script if the console rendered them as HTML. */
const ORG_NAME = 'Acme <script>window.__injected = "org"</script>';
const TEAM_NAME = '<img src=x onerror="window.__injected = \'team\'">';

const describeWithChromium = serviceAvailable('chromium') ? describe : describe.skip;

/**
 * The console (docs/decisions.md, "Console") driven in headless Chromium against a gateway paid on
 * the local chain: what each role is offered, the API's refusals shown, the credential kept in the
 * tab. Each view is saved at 1440 and 360 px under test/artifacts/console/.
 */
describeWithChromium('the console in a browser', () => {
  let world: PaidWorld;
  let gateway: RunningGateway;
  let browser: Browser;
  let owner: Page;
  let orgId: string;
  let ownerKey: string;
  const contexts: BrowserContext[] = [];
  const requested: string[] = [];
  const secrets: string[] = [TEST_ADMIN_TOKEN];

  const rest = async <T>(credential: string, method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${credential}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const newPage = async (): Promise<Page> => {
    const context = await watchedContext(browser, requested);
    contexts.push(context);
    return context.newPage();
  };
  const issueInConsole = async (name: string, role: string): Promise<string> => {
    await openView(owner, 'Keys');
    const form = owner.getByRole('form', { name: 'Issue a key' });
    await form.getByLabel('Key name').fill(name);
    await form.getByLabel('Role').selectOption(role);
    await form.getByRole('button', { name: 'Issue key' }).click();
    await owner.getByText(`Key ${name} (${role}) issued`, { exact: false }).waitFor();
    const key = (await owner.getByTestId('issued-key').textContent())!.trim();
    secrets.push(key);
    return key;
  };

  beforeAll(async () => {
    const consoleDir = buildConsoleBundle();
    [world, browser] = await Promise.all([startPaidWorld(), launchChromium()]);
    gateway = await startPaidGateway(world, { ...(await pgliteStorage()).env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_ENTERPRISE_RATE_LIMIT: '100000' }, { consoleDir });
    const ownerWallet = fundedPayer(world).publicKey.toBase58();
    orgId = (await rest<{ id: string }>(TEST_ADMIN_TOKEN, 'POST', '/v1/orgs', { name: ORG_NAME, owner_wallet: ownerWallet })).id;
    ownerKey = (await rest<{ key: string }>(TEST_ADMIN_TOKEN, 'POST', `/v1/orgs/${orgId}/api-keys`, { name: 'owner', role: 'owner' })).key;
    secrets.push(ownerKey);
    owner = await newPage();
    await owner.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.url });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await world?.close();
  });

  it('serves the page and its assets under a strict CSP, from the built bundle only', async () => {
    const page = await fetch(`${gateway.url}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp.split(/;\s*/)).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]));
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    const html = await page.text();
    expect(html).not.toMatch(/<script>|<style|\son\w+=|https?:\/\//);
    for (const [asset, type] of [
      ['app.js', /^text\/javascript/],
      ['app.css', /^text\/css/],
    ] as const) {
      const res = await fetch(`${gateway.url}/console/${asset}`);
      expect([res.status, res.headers.get('content-type')]).toEqual([200, expect.stringMatching(type)]);
      expect(await res.text()).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    }
    const unknown = await fetch(`${gateway.url}/console/..%2Fpackage.json`);
    expect([unknown.status, ((await unknown.json()) as { error: { code: string } }).error.code]).toEqual([404, 'route.not_found']);
  });

  it('an owner creates a team, adds a wallet with its consent, sets a daily budget, and sees the bar and the spend after a paid request', async () => {
    await signIn(owner, gateway.url, ownerKey);
    expect(await owner.getByTestId('who').textContent()).toBe('Org key, role owner');
    expect(await owner.getByText('Loading the console').count()).toBe(0);
    await owner.getByRole('heading', { level: 1, name: `Org ${ORG_NAME}`, exact: true }).waitFor();

    const teams = owner.getByRole('form', { name: 'Create a team' });
    await teams.getByLabel('Team name').fill('');
    await teams.getByRole('button', { name: 'Create team' }).click();
    await teams.getByRole('alert').filter({ hasText: 'a name is 1 to 128 characters' }).waitFor();
    await teams.getByLabel('Team name').fill(TEAM_NAME);
    await teams.getByRole('button', { name: 'Create team' }).click();
    await owner.getByRole('cell', { name: TEAM_NAME, exact: true }).waitFor();
    const team = (await rest<{ data: Array<{ id: string; name: string }> }>(ownerKey, 'GET', `/v1/orgs/${orgId}/teams`)).data[0];
    expect(team.name).toBe(TEAM_NAME);

    const payer: Keypair = fundedPayer(world);
    wallet = payer.publicKey.toBase58();
    const add = owner.getByRole('form', { name: `Add a wallet to team ${TEAM_NAME}` });
    await add.getByLabel('Wallet address').fill('not-base58!');
    await add.getByRole('button', { name: 'Add wallet' }).click();
    await add.getByRole('alert').filter({ hasText: 'a wallet address is base58' }).waitFor();
    // Well-formed but signed by another wallet: the form passes it, the API refuses it.
    await add.getByLabel('Wallet address').fill(wallet);
    await add.getByLabel('Consent signature (base64)').fill(joinConsent(fundedPayer(world), orgId, team.id));
    await add.getByRole('button', { name: 'Add wallet' }).click();
    await add.getByRole('alert').filter({ hasText: 'org.consent_invalid' }).waitFor();
    await add.getByLabel('Consent signature (base64)').fill(joinConsent(payer, orgId, team.id));
    await add.getByRole('button', { name: 'Add wallet' }).click();
    await owner.getByRole('cell', { name: wallet }).waitFor();
    await screenshots(owner, 'org-owner');

    await openView(owner, 'Budgets');
    const budget = owner.getByRole('form', { name: `Set the budget of team ${TEAM_NAME}` });
    await budget.getByLabel('daily limit (USDC)').fill('1.0000001');
    await budget.getByRole('button', { name: 'Save budget' }).click();
    await budget.getByRole('alert').filter({ hasText: 'at most 6 decimals' }).waitFor();
    await budget.getByLabel('daily limit (USDC)').fill('1');
    await budget.getByRole('button', { name: 'Save budget' }).click();
    await owner.getByRole('img', { name: '0.000000 of 1 USDC spent this day' }).waitFor();
    expect(await owner.getByRole('img', { name: '0.000000 USDC spent this hour, uncapped' }).count()).toBe(1);

    const { header, amount } = await quote(gateway, chatBody());
    const paid = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header, { payer }) });
    const receiptPath = receiptPathOf(paid, await paid.text());
    expect(paid.status).toBe(200);
    receiptId = receiptPath!.split('/').pop()!;
    await until(async () => (await rest<{ daily_spend: string }>(ownerKey, 'GET', `/v1/orgs/${orgId}/teams/${team.id}/budget`)).daily_spend === formatUsdc(amount), 5_000, 'the spend is settled');
    // A reload keeps the tab's sign-in.
    await owner.reload();
    await owner.getByRole('img', { name: `${formatUsdc(amount)} of 1 USDC spent this day` }).waitFor();
    await screenshots(owner, 'budgets');

    await openView(owner, 'Usage');
    await owner.getByRole('button', { name: wallet }).click();
    await owner.getByRole('button', { name: 'Show usage' }).click();
    await expect(owner.getByTestId('usage-totals').textContent()).resolves.toMatch(new RegExp(`^1 request, ${formatUsdc(amount)} USDC`));
    // Some day holds the spend (any day: a run across midnight UTC must not fail).
    await owner.getByRole('img', { name: new RegExp(`^Spend per day \\(USDC\\): (.*, )?\\d{4}-\\d{2}-\\d{2} ${Number(formatUsdc(amount))} USDC(, |$)`) }).waitFor();
    await owner.getByRole('cell', { name: 'openai/gpt-4o-mini' }).waitFor();
    await screenshots(owner, 'usage');

    await openView(owner, 'Audit');
    await owner.getByRole('cell', { name: 'budget.set', exact: true }).waitFor();
    await screenshots(owner, 'audit-owner');
    // Names with markup were shown as text everywhere, and ran nothing.
    expect(await owner.evaluate('window.__injected')).toBeUndefined();
  });

  let receiptId = '';
  let wallet = '';

  it('issues a member key shown once with a copy button; signed in with it, the write actions are absent', async () => {
    const memberKey = await issueInConsole('reader', 'member');
    expect(memberKey).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    await owner.getByRole('button', { name: 'Copy key' }).click();
    await owner.getByText('Copied.').waitFor();
    expect(await owner.evaluate('navigator.clipboard.readText()')).toBe(memberKey);
    await owner.getByRole('cell', { name: 'reader', exact: true }).waitFor();
    await screenshots(owner, 'keys');

    const member = await newPage();
    await signIn(member, gateway.url, memberKey);
    expect(await member.getByTestId('who').textContent()).toBe('Org key, role member');
    const views = await member.getByRole('navigation', { name: 'Views' }).getByRole('link').allTextContents();
    expect(views).toEqual(['Org', 'Usage']);
    await member.getByRole('cell', { name: TEAM_NAME, exact: true }).waitFor();
    expect(await member.getByRole('form').count()).toBe(0);
    expect(await member.getByRole('button', { name: /Create|Add|Issue|Revoke|Save/ }).count()).toBe(0);
    await screenshots(member, 'org-member');
  });

  it('revokes a key, and the next action of that key fails with the API message', async () => {
    const adminKey = await issueInConsole('ops', 'admin');
    const ops = await newPage();
    await signIn(ops, gateway.url, adminKey);
    await owner.getByRole('button', { name: 'Revoke key ops' }).click();
    await owner.getByRole('row', { name: /ops admin .* UTC .* UTC/ }).waitFor();

    const form = ops.getByRole('form', { name: 'Create a team' });
    await form.getByLabel('Team name').fill('too late');
    await form.getByRole('button', { name: 'Create team' }).click();
    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('missing or invalid admin token or API key org.unauthorized');
    await screenshots(ops, 'revoked-key');
  });

  it('the admin token sees every org, the health of the gateway and of escrow, a receipt by id, and both audits', async () => {
    const admin = await newPage();
    await signIn(admin, gateway.url, TEST_ADMIN_TOKEN);
    expect(await admin.getByTestId('who').textContent()).toBe('Admin token');
    await admin.getByRole('cell', { name: ORG_NAME, exact: true }).waitFor();
    await admin.getByRole('region', { name: 'Gateway health' }).getByText('checks').waitFor();
    await admin.getByRole('region', { name: 'Escrow health' }).getByText('fee_payer_wallets').waitFor();
    const lookup = admin.getByRole('form', { name: 'Look up a receipt' });
    await lookup.getByLabel('Receipt id').fill('not-a-uuid');
    await lookup.getByRole('button', { name: 'Look up' }).click();
    await lookup.getByRole('alert').filter({ hasText: 'a receipt id is a UUID' }).waitFor();
    await lookup.getByLabel('Receipt id').fill(receiptId);
    await lookup.getByRole('button', { name: 'Look up' }).click();
    await admin.getByText('settled', { exact: true }).waitFor();
    await screenshots(admin, 'operator');

    await admin.getByRole('button', { name: `Open org ${ORG_NAME}` }).click();
    await admin.getByRole('cell', { name: TEAM_NAME, exact: true }).waitFor();
    expect(await admin.getByRole('navigation', { name: 'Views' }).getByRole('link').allTextContents()).toEqual(['Operator', 'Org', 'Keys', 'Budgets', 'Usage', 'Audit']);
    await openView(admin, 'Budgets');
    await admin.getByLabel('Payer wallet').fill(wallet);
    await admin.getByRole('button', { name: 'Show budget' }).click();
    const walletBudget = admin.getByRole('form', { name: `Set the budget of wallet ${wallet}` });
    await walletBudget.getByLabel('monthly limit (USDC)').fill('5');
    await walletBudget.getByRole('button', { name: 'Save budget' }).click();
    await admin.getByRole('img', { name: /^\d+\.\d{6} of 5 USDC spent this month$/ }).waitFor();
    await screenshots(admin, 'budgets-admin');

    await openView(admin, 'Audit');
    await admin.getByRole('region', { name: "The org's audit", exact: true }).getByRole('cell', { name: 'org.created' }).waitFor();
    await admin.getByRole('region', { name: "The operator's audit", exact: true }).getByRole('cell', { name: 'budget.set' }).waitFor();
    await screenshots(admin, 'audit-admin');
    expect(await admin.evaluate('window.__injected')).toBeUndefined();
  });

  it('kept every credential out of URLs, cookies and localStorage: only in the tab’s sessionStorage', async () => {
    expect(requested.length).toBeGreaterThan(20);
    for (const secret of secrets) {
      expect(requested.filter((url) => url.includes(secret) || url.includes(encodeURIComponent(secret)))).toEqual([]);
    }
    for (const context of contexts) {
      expect(await context.cookies()).toEqual([]);
      for (const page of context.pages()) {
        expect(page.url()).toMatch(new RegExp(`^${gateway.url}/console(#\\w+)?$`));
        expect(await page.evaluate('localStorage.length')).toBe(0);
        expect(secrets).toContain(await page.evaluate("sessionStorage.getItem('gw-console-credential')"));
      }
    }
  });
});

describe('the console without its bundle', () => {
  it('answers 503 console.not_built rather than failing', async () => {
    const gateway = await startTestGateway({}, { consoleDir: '/nonexistent/console' });
    try {
      const res = await fetch(`${gateway.url}/console`);
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([503, 'console.not_built']);
    } finally {
      await gateway.close();
    }
  });
});
