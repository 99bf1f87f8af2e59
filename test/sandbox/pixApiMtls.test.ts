/**
 * The sandbox over mutual TLS (sandbox/listen.ts), with a CA and certificates made at test time
 * (test/support/testCertificates.ts): a client without a certificate, or with one from another
 * CA, is refused in the handshake; with the CA's client certificate (PEM, or PKCS#12 with its
 * passphrase) the token endpoint and API Pix answer.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { Agent, fetch } from 'undici';
import { createSandboxApp } from '../../sandbox/app';
import { DEV_PIX_CLIENT_ID, DEV_PIX_CLIENT_SECRET } from '../../sandbox/config';
import { listenSandbox, type ListeningSandbox } from '../../sandbox/listen';
import { freePort } from '../../scripts/lib/ports';
import { createTestCertificates, type TestCertificates } from '../support/testCertificates';
import { closeServer, API_KEY, CALLBACK_SECRET, waitFor } from './harness';
import { basic, cobBody, newTxid } from './pixApiHarness';

jest.setTimeout(120_000);

let pki: TestCertificates;
let sandbox: ReturnType<typeof createSandboxApp>;
let listening: ListeningSandbox;
beforeAll(async () => {
  pki = await createTestCertificates({ pkcs12: true });
  sandbox = createSandboxApp({ apiKey: API_KEY, callbackSecret: CALLBACK_SECRET });
  listening = await listenSandbox(sandbox.app, {
    host: '127.0.0.1',
    port: 0,
    tls: { cert: pki.server.cert, key: pki.server.key, clientCa: pki.ca.cert },
  });
});
afterAll(async () => {
  sandbox?.stop();
  if (listening) await closeServer(listening.server as Server);
  pki?.remove();
});

function client(connect: Record<string, unknown>): Agent {
  return new Agent({ connect: { ca: pki.ca.cert, ...connect } });
}

async function token(dispatcher: Agent) {
  return fetch(`${listening.url}/oauth/token`, {
    method: 'POST',
    dispatcher,
    headers: {
      authorization: basic(DEV_PIX_CLIENT_ID, DEV_PIX_CLIENT_SECRET),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
}

it('listens on https', () => {
  expect(listening.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
});

it('refuses a client without a certificate, or with one another CA signed, in the handshake', async () => {
  const anonymous = client({});
  const stranger = client({ cert: pki.stranger.cert, key: pki.stranger.key });
  try {
    await expect(token(anonymous)).rejects.toThrow();
    await expect(token(stranger)).rejects.toThrow();
  } finally {
    await anonymous.close();
    await stranger.close();
  }
});

it('serves the token endpoint and API Pix to the client with its certificate, in PEM or PKCS#12', async () => {
  const pem = client({ cert: pki.client.cert, key: pki.client.key });
  const pfx = client({ pfx: fs.readFileSync(pki.client.pfxFile as string), passphrase: pki.client.pfxPassphrase });
  try {
    for (const dispatcher of [pem, pfx]) {
      const granted = await token(dispatcher);
      expect(granted.status).toBe(200);
      const { access_token } = (await granted.json()) as { access_token: string };
      const res = await fetch(`${listening.url}/api/v2/cob/${newTxid()}`, {
        method: 'PUT',
        dispatcher,
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(cobBody()),
      });
      expect(res.status).toBe(201);
      expect(((await res.json()) as { status: string }).status).toBe('ATIVA');
    }
  } finally {
    await pem.close();
    await pfx.close();
  }
});

it('sandbox/server.ts serves mutual TLS from SANDBOX_TLS_CERT_FILE, SANDBOX_TLS_KEY_FILE and SANDBOX_TLS_CLIENT_CA_FILE', async () => {
  const port = await freePort();
  const root = path.resolve(__dirname, '..', '..');
  const server = spawn(process.execPath, [require.resolve('tsx/cli'), path.join(root, 'sandbox', 'server.ts')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PROVIDER_API_KEY: API_KEY,
      PROVIDER_CALLBACK_SECRET: CALLBACK_SECRET,
      SANDBOX_PORT: String(port),
      SANDBOX_DATA_FILE: path.join(pki.dir, 'state.jsonl'),
      SANDBOX_TLS_CERT_FILE: pki.server.certFile,
      SANDBOX_TLS_KEY_FILE: pki.server.keyFile,
      SANDBOX_TLS_CLIENT_CA_FILE: pki.ca.certFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  server.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  server.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const withCert = client({ cert: pki.client.cert, key: pki.client.key });
  const anonymous = client({});
  try {
    await waitFor(() => output.includes('pix sandbox listening'), 90_000);
    expect(output).toContain('"tls":"mutual"');
    const health = await fetch(`https://127.0.0.1:${port}/health`, { dispatcher: withCert });
    expect(health.status).toBe(200);
    await expect(fetch(`https://127.0.0.1:${port}/health`, { dispatcher: anonymous })).rejects.toThrow();
  } finally {
    await withCert.close();
    await anonymous.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('close', r));
  }
});
