/** /sandbox/* (pay any charge, inject faults) needs a token outside development and tests. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { readSandboxConfig } from '../../sandbox/config';
import { API_KEY, chargeRequest, startSandbox } from './harness';

const run = promisify(execFile);

describe('sandbox control token', () => {
  it('refuses control routes without the token, and takes them with it', async () => {
    const h = await startSandbox({ controlToken: 'ctl_secret_token' });
    try {
      const charge = await h.provider.issueCharge(chargeRequest());
      const anonymous = await h.call('POST', `/sandbox/charges/${charge.id}/pay`, {});
      expect(anonymous.status).toBe(401);
      expect(anonymous.json.error.code).toBe('UNAUTHORIZED');
      expect((await h.call('POST', '/sandbox/faults', { errorRate: 1 })).status).toBe(401);
      expect(
        (await h.call('POST', `/sandbox/charges/${charge.id}/pay`, {}, { authorization: 'Bearer wrong' })).status,
      ).toBe(401);
      // Nothing happened: the charge is still payable and the provider API still works.
      expect((await h.provider.getCharge(charge.id)).status).toBe('ACTIVE');
      const paid = await h.call(
        'POST',
        `/sandbox/charges/${charge.id}/pay`,
        {},
        { authorization: 'Bearer ctl_secret_token' },
      );
      expect(paid.status).toBe(200);
      // The provider API key is not a control token.
      expect((await h.call('GET', '/sandbox/faults', undefined, { authorization: `Bearer ${API_KEY}` })).status).toBe(
        401,
      );
    } finally {
      await h.close();
    }
  });

  it('requires SANDBOX_CONTROL_TOKEN unless NODE_ENV is development or test', () => {
    const base = { PROVIDER_API_KEY: 'k', PROVIDER_CALLBACK_SECRET: 's' };
    expect(() => readSandboxConfig({ ...base, NODE_ENV: 'production' })).toThrow(/SANDBOX_CONTROL_TOKEN/);
    expect(() => readSandboxConfig({ ...base })).toThrow(/SANDBOX_CONTROL_TOKEN/);
    expect(() => readSandboxConfig({ ...base, NODE_ENV: 'staging' })).toThrow(/SANDBOX_CONTROL_TOKEN/);
    expect(readSandboxConfig({ ...base, NODE_ENV: 'development' }).controlToken).toBeUndefined();
    const pix = { SANDBOX_PIX_CLIENT_ID: 'client', SANDBOX_PIX_CLIENT_SECRET: 'y'.repeat(32) };
    expect(
      readSandboxConfig({ ...base, ...pix, NODE_ENV: 'production', SANDBOX_CONTROL_TOKEN: 'x'.repeat(32) })
        .controlToken,
    ).toBe('x'.repeat(32));
  });

  it('requires the API Pix client credentials unless NODE_ENV is development or test, where they have public values', () => {
    const base = { PROVIDER_API_KEY: 'k', PROVIDER_CALLBACK_SECRET: 's', SANDBOX_CONTROL_TOKEN: 'x'.repeat(32) };
    expect(() => readSandboxConfig({ ...base, NODE_ENV: 'production' })).toThrow(
      /SANDBOX_PIX_CLIENT_ID and SANDBOX_PIX_CLIENT_SECRET/,
    );
    expect(() => readSandboxConfig({ ...base, NODE_ENV: 'production', SANDBOX_PIX_CLIENT_ID: 'c' })).toThrow(
      /SANDBOX_PIX_CLIENT_SECRET/,
    );
    expect(readSandboxConfig({ ...base, NODE_ENV: 'test' })).toMatchObject({
      pixClientId: 'pix-sandbox-client',
      pixClientSecret: 'pix-sandbox-secret',
      pixTokenTtlSeconds: 3600,
      tls: undefined,
    });
    const set = readSandboxConfig({
      ...base,
      NODE_ENV: 'production',
      SANDBOX_PIX_CLIENT_ID: 'c',
      SANDBOX_PIX_CLIENT_SECRET: 's',
      SANDBOX_PIX_TOKEN_TTL_SECONDS: '60',
      SANDBOX_PIX_KEYS: 'a@b.com, 11222333000181',
    });
    expect(set).toMatchObject({
      pixClientId: 'c',
      pixClientSecret: 's',
      pixTokenTtlSeconds: 60,
      pixReceivingKeys: ['a@b.com', '11222333000181'],
    });
    expect(() => readSandboxConfig({ ...base, NODE_ENV: 'test', SANDBOX_PIX_TOKEN_TTL_SECONDS: '0' })).toThrow(
      /SANDBOX_PIX_TOKEN_TTL_SECONDS/,
    );
    // TLS: the certificate and key go together; a file that cannot be read fails the start.
    expect(() => readSandboxConfig({ ...base, NODE_ENV: 'test', SANDBOX_TLS_CERT_FILE: '/nonexistent.crt' })).toThrow(
      /SANDBOX_TLS_KEY_FILE/,
    );
    expect(() =>
      readSandboxConfig({
        ...base,
        NODE_ENV: 'test',
        SANDBOX_TLS_CERT_FILE: '/nonexistent.crt',
        SANDBOX_TLS_KEY_FILE: '/nonexistent.key',
      }),
    ).toThrow(/cannot read/);
  });

  it('`gateway sandbox pay` prints a short summary with the token it is given, --json prints the whole charge', async () => {
    const h = await startSandbox({ controlToken: 'ctl_cli_token' });
    try {
      const root = path.resolve(__dirname, '../..');
      const env = { ...process.env, SANDBOX_BASE_URL: h.url, SANDBOX_CONTROL_TOKEN: 'ctl_cli_token' };
      const cli = (args: string[]) =>
        run(process.execPath, [require.resolve('tsx/cli'), path.join(root, 'cli/gateway.ts'), ...args], {
          env,
          cwd: root,
        });
      const charge = await h.provider.issueCharge(chargeRequest({ amountCents: 1_050 }));
      const { stdout } = await cli(['sandbox', 'pay', charge.id]);
      expect(stdout).toContain(charge.id);
      expect(stdout).toContain('PAID');
      expect(stdout).toContain('10.50');
      expect(stdout).toMatch(/E\d{8}\d{12}[A-Za-z0-9]{11}/);
      expect(stdout).not.toContain(charge.qrCodeBase64.slice(0, 40));
      expect(stdout.length).toBeLessThan(500);

      const other = await h.provider.issueCharge(chargeRequest());
      const json = JSON.parse((await cli(['sandbox', 'pay', other.id, '--json'])).stdout);
      expect(json).toMatchObject({ id: other.id, status: 'PAID', qrCodeBase64: expect.any(String) });

      // The same control call opens a Pix infraction (MED) against the paid charge.
      const infraction = JSON.parse(
        (await cli(['sandbox', 'open-infraction', charge.id, '--amount', '300', '--reason', 'scam', '--json'])).stdout,
      );
      expect(infraction).toMatchObject({
        amountCents: 300,
        reason: 'SCAM',
        endToEndId: expect.stringMatching(/^E\d{8}/),
      });
    } finally {
      await h.close();
    }
    // Three CLI processes, each compiling the CLI with tsx: 60 s ran out on a loaded machine.
  }, 180_000);
});
