/**
 * The documentation's walkthroughs run as pasted: the README's five-minute try-it and the P0
 * checkout walkthrough (docs/api/checkouts.md). Their ```bash blocks are read from the markdown at
 * test time and fed, one after another, to one bash shell, against a test stack instead of
 * `npm start`: `API` is the stack's URL (the blocks default it to npm start's), and the CLI finds
 * the stack's database, key and sandbox through the environment, as it finds npm start's through
 * .data/local-env.json. Each walkthrough runs twice in a row, in a new shell each time. The shell
 * runs with `set -eo pipefail`, stricter than a terminal: every command of every block must
 * succeed, not only each block's last. Then the money is checked through the API with what the
 * shell holds: the charge (the checkout) is PAID, the student enrolled.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant } from '../support/ledger';
import { recordIssuedSecrets } from '../support/testLogs';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '..', '..');
/** The P0 walkthrough's fixed password (in the markdown): audited like every password a test sends. */
const WALKTHROUGH_PASSWORD = 'uma senha longa';

let stack: SharedStack;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
  recordIssuedSecrets('the P0 walkthrough password', [WALKTHROUGH_PASSWORD]);
});

afterAll(async () => {
  if (stack) await assertLedgerInvariant(stack.sequelize);
  await stack?.stop();
});

/**
 * The ```bash and ```sh blocks under a heading of a markdown file, up to the next heading of the
 * same or a higher level.
 */
function walkthroughBlocks(file: string, heading: string): string[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: string[] = [];
  let level = 0;
  let block: string[] | null = null;
  let fence = '';
  for (const line of lines) {
    if (fence) {
      if (line.trim() === fence) {
        if (block && level) blocks.push(block.join('\n'));
        block = null;
        fence = '';
      } else block?.push(line);
      continue;
    }
    const opener = /^(`{3,})\s*([\w-]*)/.exec(line);
    if (opener) {
      fence = opener[1];
      block = level && ['bash', 'sh'].includes(opener[2]) ? [] : null;
      continue;
    }
    const title = /^(#{1,6})\s+(.*)$/.exec(line);
    if (!title) continue;
    if (title[2].trim() === heading) level = title[1].length;
    else if (level && title[1].length <= level) break;
  }
  if (!level) throw new Error(`${file} has no heading "${heading}"`);
  return blocks;
}

interface Run {
  /** The blocks that exited 0, in order. */
  passed: number;
  code: number | null;
  output: string;
  /** The shell variables the walkthrough left, as the test asked for them. */
  state: Record<string, string>;
}

/** One walkthrough in a new bash: its blocks in order, then the variables named in `keep`. */
function runInBash(blocks: string[], keep: string[]): Promise<Run> {
  const script = [
    'set -eo pipefail',
    ...blocks.map((block, i) => `${block}\nprintf '\\n@@block %s ok\\n' ${i + 1}`),
    `for v in ${keep.join(' ')}; do printf '@@%s=%s\\n' "$v" "\${!v}"; done`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-c', script], {
      cwd: ROOT,
      env: {
        ...process.env,
        API: stack.apiUrl,
        DATABASE_URL: stack.workerEnv.DATABASE_URL,
        CREDENTIALS_ENCRYPTION_KEY: stack.encryptionKey,
        SANDBOX_BASE_URL: stack.sandboxUrl,
        // The test stack's sandbox wants no token: never one from a local npm start (.data/local-env.json).
        SANDBOX_CONTROL_TOKEN: '',
      },
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const state: Record<string, string> = {};
      let passed = 0;
      for (const line of output.split('\n')) {
        const done = /^@@block (\d+) ok$/.exec(line);
        if (done) passed = Number(done[1]);
        const kept = /^@@([A-Z_]+)=(.*)$/.exec(line);
        if (kept) state[kept[1]] = kept[2];
      }
      recordIssuedSecrets('walkthrough credentials and tokens', [state.CS, state.TOKEN]);
      resolve({ passed, code, output, state });
    });
  });
}

/** What a failed run printed, with the secrets it held taken out (the test output is audited). */
function shown(run: Run): string {
  let text = run.output;
  for (const secret of [run.state.CS, run.state.TOKEN].filter(Boolean)) text = text.split(secret).join('[REDACTED]');
  return text.replace(/sk_[A-Za-z0-9_-]+/g, 'sk_[REDACTED]').slice(-4000);
}

function expectEveryBlockPassed(run: Run, blocks: string[]): void {
  if (run.code !== 0 || run.passed !== blocks.length)
    throw new Error(
      `block ${run.passed + 1} of ${blocks.length} failed (bash exit ${run.code}):\n${blocks[run.passed] ?? ''}\n--- output ---\n${shown(run)}`,
    );
}

const credentialsOf = (state: Record<string, string>) =>
  ({ merchantId: '', clientId: state.CID, clientSecret: state.CS }) as MerchantCredentials;

describe('README: try it in five minutes', () => {
  const blocks = walkthroughBlocks('README.md', 'Try it in five minutes');

  it('has the blocks of the walkthrough, and none of them starts the stack', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(blocks.join('\n')).toContain('${API:-http://127.0.0.1:3000}');
    expect(blocks.join('\n')).not.toMatch(/^\s*npm (start|test)\b/m);
  });

  it('runs as pasted, twice in a row: every block exits 0 and each run ends with its charge PAID', async () => {
    const charges: string[] = [];
    for (let round = 1; round <= 2; round++) {
      const run = await runInBash(blocks, ['CID', 'CS', 'CHARGE_ID']);
      expectEveryBlockPassed(run, blocks);
      expect(run.output).toContain('"status":"PAID"');
      const read = await stack.api('GET', '/sellers/pix/order-1001', { creds: credentialsOf(run.state) });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        id: run.state.CHARGE_ID,
        status: 'PAID',
        amountCents: 12345,
        externalRef: 'order-1001',
        payer: { name: 'Pagador Sandbox' },
      });
      charges.push(run.state.CHARGE_ID);
    }
    // A new merchant each run: the same idempotency key made a new charge, not a replay.
    expect(new Set(charges).size).toBe(2);
  });
});

describe('docs/api/checkouts.md: sell a course through a P0 checkout', () => {
  const blocks = walkthroughBlocks('docs/api/checkouts.md', 'Walkthrough: sell a course through a P0 checkout');

  it('runs as pasted, twice in a row: the checkout ends PAID and the student enrolled', async () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const bills: string[] = [];
    for (let round = 1; round <= 2; round++) {
      const run = await runInBash(blocks, ['CID', 'CS', 'BILL', 'MERCHANT', 'TOKEN']);
      expectEveryBlockPassed(run, blocks);
      const checkout = await stack.api('GET', `/v1/checkouts/${run.state.BILL}`, { creds: credentialsOf(run.state) });
      expect(checkout.status).toBe(200);
      expect(checkout.body.data).toMatchObject({ id: run.state.BILL, status: 'PAID', amount: 4990, paidAmount: 4990 });
      const enrolments = await stack.api('GET', `/enrolments?merchantId=${run.state.MERCHANT}`, {
        headers: { authorization: `Bearer ${run.state.TOKEN}` },
      });
      expect(enrolments.status).toBe(200);
      expect(enrolments.body.data).toEqual([
        expect.objectContaining({ checkoutId: run.state.BILL, status: 'ACTIVE', student: expect.anything() }),
      ]);
      bills.push(run.state.BILL);
    }
    expect(new Set(bills).size).toBe(2);
  });
});
