/**
 * The production build runs: `npm run build`'s JavaScript with only the production dependencies
 * (scripts/lib/productionBuild.ts), the sandbox, worker and API started from it with
 * NODE_ENV=production (test/support/builtStack.ts), a merchant made with the built CLI, a charge
 * created over HTTP, paid at the sandbox and seen PAID, its PDF receipt drawn. And no devDependency
 * can be loaded there.
 */
import { execFile } from 'node:child_process';
import { startBuiltStack, type BuiltStack } from '../support/builtStack';
import { testEnv, waitFor } from '../support/env';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';

jest.setTimeout(180_000);

let stack: BuiltStack;

beforeAll(async () => {
  const env = testEnv();
  stack = await startBuiltStack({
    temporalAddress: env.temporalAddress,
    databaseUrl: env.databaseUrl,
    templateDatabase: env.templateDatabase,
  });
});

afterAll(async () => {
  await stack?.stop();
});

function resolveIn(dir: string, name: string): Promise<string> {
  return new Promise((resolve) =>
    execFile(process.execPath, ['-p', `require.resolve(${JSON.stringify(name)})`], { cwd: dir }, (err, stdout) =>
      resolve(err ? 'not found' : stdout.trim()),
    ),
  );
}

it('no devDependency can be loaded from the build; its production dependencies can', async () => {
  for (const dev of ['tsx', 'jest', 'typescript', '@swc/jest'])
    expect([dev, await resolveIn(stack.dir, dev)]).toEqual([dev, 'not found']);
  expect(await resolveIn(stack.dir, '@temporalio/worker')).toContain(stack.dir);
});

it('a charge created over HTTP on the built API is paid at the sandbox, becomes PAID and has its PDF receipt', async () => {
  const merchant = JSON.parse(
    await stack.cli(['merchant', 'create', '--name', 'Loja Build', '--document', '11144477735', '--json']),
  ) as { clientId: string; clientSecret: string };
  const creds = { 'x-client-id': merchant.clientId, 'x-client-secret': merchant.clientSecret };
  const created = await stack.request('POST', `${stack.apiUrl}/sellers/pix`, {
    headers: { ...creds, 'x-idempotency-key': 'build-order-1' },
    body: { amountCents: 12345, description: 'Pedido build', externalRef: 'build-order-1' },
  });
  expect({ status: created.status, charge: created.body?.status }).toEqual({ status: 201, charge: 'PENDING' });

  expect((await stack.pay(created.body.id)).status).toBe(200);
  const paid = await waitFor(
    async () => {
      const res = await stack.request('GET', `${stack.apiUrl}/sellers/pix/${created.body.id}`, { headers: creds });
      return res.body?.status === 'PAID' && res.body;
    },
    'the charge to be PAID',
    30_000,
  );
  expect(paid).toMatchObject({ id: created.body.id, amountCents: 12345, status: 'PAID' });

  // Its receipt: drawn by a render thread whose entry is the compiled renderer (api/receipts/receiptDocuments.ts).
  const receiptPath = `/v1/receipts/transactions/${created.body.id}`;
  const receipt = await stack.request('GET', `${stack.apiUrl}${receiptPath}`, {
    headers: signedRequestHeaders({
      ...merchant,
      method: 'GET',
      path: receiptPath,
      rawBody: '',
      timestampMs: Date.now(),
    }),
  });
  expect({ status: receipt.status, start: String(receipt.body).slice(0, 5) }).toEqual({ status: 200, start: '%PDF-' });
});
