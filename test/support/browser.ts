/**
 * Real headless Chromium for the browser tests: Debian's `chromium` (installed by
 * scripts/lib/chromium.sh) driven by playwright-core, which downloads no browser of its own.
 * Where Chromium cannot be installed (not root and not installed), the browser tests are skipped
 * with a loud message, never silently.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
const root = path.resolve(__dirname, '..', '..');

/** Flags for a closed-network machine: no sandbox (root in a container), no GPU, nothing that phones home. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

let ensured: boolean | undefined;

/** Installs Chromium when missing and possible; false (after a loud message) when it cannot be had. */
export function ensureChromium(): boolean {
  if (ensured !== undefined) return ensured;
  try {
    execFileSync('bash', [path.join(root, 'scripts', 'lib', 'chromium.sh'), '--ensure'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    ensured = fs.existsSync(CHROMIUM_PATH);
  } catch (err) {
    const why = err instanceof Error && 'stderr' in err ? String((err as { stderr: Buffer }).stderr) : String(err);
    ensured = false;
    // eslint-disable-next-line no-console
    console.warn(
      [
        '',
        '#'.repeat(78),
        "### BROWSER TESTS SKIPPED: Debian's chromium is not installed and cannot be installed here.",
        '### Install it (sudo apt-get install --no-install-recommends chromium) and run the tests again.',
        ...why
          .trim()
          .split('\n')
          .map((l) => `### ${l}`),
        '#'.repeat(78),
        '',
      ].join('\n'),
    );
  }
  return ensured;
}

export interface RunningBrowser {
  browser: Browser;
  /** A fresh context (no cookies, no cache) per test; clipboard allowed so the copy button works. */
  context: () => Promise<BrowserContext>;
  close: () => Promise<void>;
}

export async function launchBrowser(): Promise<RunningBrowser> {
  // playwright-core's launch() starts Chromium on a fresh temporary --user-data-dir of its own and
  // removes it on close (it refuses the flag in `args`): every run starts from an empty profile.
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
  return {
    browser,
    context: () =>
      browser.newContext({ viewport: { width: 414, height: 896 }, locale: 'pt-BR', timezoneId: 'America/Sao_Paulo' }),
    close: () => browser.close(),
  };
}

/** Where the tests keep screenshots (git-ignored); see docs/api/checkouts.md, "Hosted checkout page". */
export function artifactDir(...parts: string[]): string {
  const dir = path.join(root, 'test-artifacts', ...parts);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
