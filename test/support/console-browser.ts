import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { tempDir } from './gateway-harness';
import { CHROMIUM_PATH } from './services';

/** Where the console's screenshots go: a CI artefact, ignored by git. */
const SCREENSHOTS = join(__dirname, '..', 'artifacts', 'console');
const WIDTHS = [1440, 360] as const;

/** The console built as `npm run build` builds it, into a directory of its own: tests run on sources, with no dist. */
export function buildConsoleBundle(): string {
  const dir = tempDir('gw-console-');
  const build = spawnSync(process.execPath, [join(__dirname, '..', '..', 'console', 'build.mjs'), dir], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`the console build failed: ${build.stderr}`);
  return dir;
}

/**
 * Headless Chromium on a fresh profile, with its own background traffic off: this closed network
 * refuses it, and a test must see only the console's requests.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A browser context (its own cookies and storage) whose every request URL is kept. */
export async function watchedContext(browser: Browser, urls: string[]): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: WIDTHS[0], height: 900 } });
  context.on('request', (request) => urls.push(request.url()));
  return context;
}

/** Signs in from the sign-in form by keyboard alone: Tab to the field, type, Enter. */
export async function signIn(page: Page, baseUrl: string, credential: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.getByLabel('API key or admin token').waitFor();
  await page.keyboard.press('Tab');
  await page.keyboard.type(credential);
  await page.keyboard.press('Enter');
  await page.getByTestId('who').waitFor();
}

/** Opens a view from the navigation. */
export async function openView(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
}

/**
 * Screenshots of the page as it stands at each width, and the proof that it reads there: nothing
 * wider than the screen (tables scroll inside their own box).
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    if (scrollWidth > width) throw new Error(`${name} overflows ${width} px: ${scrollWidth} px wide`);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}
