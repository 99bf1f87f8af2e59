/**
 * The sandbox over mutual TLS (sandbox/listen.ts), with a CA and certificates made at test time
 * (test/support/testCertificates.ts): a client without a certificate, or with one from another
 * CA, is refused in the handshake; with the CA's client certificate (PEM, or PKCS#12 with its
 * passphrase) the token endpoint and API Pix answer. Each created account has a certificate of its
 * own: its credentials get a token over it and are refused over another account's, and a token
 * is refused on API Pix and Efí's routes over another account's certificate; the gateway's
 * "test the connection" says so in our words.
 */
import { spawn } from 'node:child_process';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { Agent, fetch } from 'undici';
import { checkConnection } from '../../activities/provider/connectionCheck';
import { PixApiConnection } from '../../activities/provider/pixApi/connection';
import { ClientTls } from '../../core/net/clientTls';
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
  // The client CA's key signs each created account's own certificate (the last describe).
  sandbox = createSandboxApp({
    apiKey: API_KEY,
    callbackSecret: CALLBACK_SECRET,
    accountCa: { cert: pki.ca.cert, key: pki.ca.key },
  });
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

describe("each account's own client certificate", () => {
  interface Made {
    id: string;
    clientId: string;
    clientSecret: string;
    key: string;
    certificatePem: string;
    privateKeyPem: string;
    certificateSha256: string;
  }
  const platform = () => client({ cert: pki.client.cert, key: pki.client.key });
  const agents: Agent[] = [];
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
  });
  const over = (made: Made) => {
    const agent = client({ cert: made.certificatePem, key: made.privateKeyPem });
    agents.push(agent);
    return agent;
  };

  async function newAccount(): Promise<Made> {
    const dispatcher = platform();
    agents.push(dispatcher);
    const res = await fetch(`${listening.url}/sandbox/accounts`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(201);
    return (await res.json()) as Made;
  }

  async function tokenAs(made: Made, dispatcher: Agent) {
    const res = await fetch(`${listening.url}/oauth/token`, {
      method: 'POST',
      dispatcher,
      headers: {
        authorization: basic(made.clientId, made.clientSecret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    return { status: res.status, json: (await res.json()) as Record<string, string> };
  }

  it('is made with the account, signed by the client CA, and pinned by its SHA-256; reads never carry its key', async () => {
    const a = await newAccount();
    const b = await newAccount();
    const cert = new X509Certificate(a.certificatePem);
    expect(cert.verify(new X509Certificate(pki.ca.cert).publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(a.privateKeyPem))).toBe(true);
    expect(a.certificateSha256).toBe(createHash('sha256').update(cert.raw).digest('hex'));
    expect(b.certificateSha256).not.toBe(a.certificateSha256);
    const dispatcher = platform();
    agents.push(dispatcher);
    const read = await (await fetch(`${listening.url}/sandbox/accounts/${a.id}`, { dispatcher })).text();
    expect(JSON.parse(read)).toMatchObject({ id: a.id, certificateSha256: a.certificateSha256 });
    expect(read.includes('PRIVATE KEY') || read.includes(a.clientSecret)).toBe(false);
  });

  it("gives a token over the account's own certificate, and refuses another account's with certificado_invalido", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const own = await tokenAs(a, over(a));
    expect(own.status).toBe(200);
    expect(own.json.access_token).toEqual(expect.any(String));

    const crossed = await tokenAs(a, over(b));
    expect(crossed.status).toBe(401);
    expect(crossed.json).toEqual({ error: 'certificado_invalido', error_description: expect.any(String) });
    // The stack's own client certificate (the platform's, the default account's) is another account's too.
    expect((await tokenAs(a, platform())).json.error).toBe('certificado_invalido');
    // A wrong secret is still invalid_client, whatever the certificate: the certificate is checked after it.
    expect((await tokenAs({ ...a, clientSecret: 'wrong' }, over(b))).json.error).toBe('invalid_client');
  });

  it("refuses a token on API Pix and Efí's routes over another account's certificate", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const token = (await tokenAs(a, over(a))).json.access_token;
    const cob = (dispatcher: Agent) =>
      fetch(`${listening.url}/api/v2/cob/${newTxid()}`, {
        method: 'PUT',
        dispatcher,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(cobBody({ chave: a.key })),
      });
    const saldo = (dispatcher: Agent) =>
      fetch(`${listening.url}/v2/gn/saldo`, { dispatcher, headers: { authorization: `Bearer ${token}` } });

    expect((await cob(over(a))).status).toBe(201);
    expect((await saldo(over(a))).status).toBe(200);
    const refusedCob = await cob(over(b));
    expect(refusedCob.status).toBe(401);
    expect(refusedCob.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const refusedSaldo = await saldo(over(b));
    expect(refusedSaldo.status).toBe(401);
    expect(((await refusedSaldo.json()) as { nome: string }).nome).toBe('nao_autorizado');
  });

  it("lets the gateway's connection test tell another account's certificate from a wrong secret, in our words", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const check = async (made: Made, certificateOf: Made) => {
      const connection = new PixApiConnection({
        tokenUrl: `${listening.url}/oauth/token`,
        clientId: made.clientId,
        clientSecret: made.clientSecret,
        tls: new ClientTls(
          {
            kind: 'pem',
            cert: Buffer.from(certificateOf.certificatePem),
            key: Buffer.from(certificateOf.privateKeyPem),
          },
          Buffer.from(pki.ca.cert),
        ),
        timeoutMs: 10_000,
        allowPlainHttp: false,
      });
      try {
        return await checkConnection(connection, { apiBaseUrl: `${listening.url}/api/v2`, pixKey: made.key });
      } finally {
        await connection.close();
      }
    };
    expect(await check(a, a)).toMatchObject({ token: 'TAKEN', balance: 'READABLE' });
    const crossed = await check(a, b);
    expect(crossed).toMatchObject({ ok: false, token: 'CERTIFICATE_REFUSED', webhook: 'UNKNOWN', balance: 'UNKNOWN' });
    expect(crossed.problems).toEqual([
      "the PSP took the client id and secret but refused the client certificate: it is not one of this account's (another account's certificate?); give the certificate the PSP issued for this account",
    ]);
    expect(await check({ ...a, clientSecret: 'wrong' }, a)).toMatchObject({ token: 'REFUSED' });
  });
});
