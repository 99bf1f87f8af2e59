/**
 * Outgoing webhooks cannot reach internal networks.
 * Hosts are written as URLs and read back through the WHATWG parser, as merchants' URLs are:
 * it turns [::ffff:169.254.169.254] into [::ffff:a9fe:a9fe] and 2130706433 into 127.0.0.1.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { isPrivateAddress } from '../../core/net/destination';
import { checkDestination } from '../../core/net/destinationPolicy';
import { DestinationRefusedError, postWebhook } from '../../activities/events/sender';

const internalUrls = [
  'http://[::ffff:127.0.0.1]:4010/x',
  'http://[::ffff:169.254.169.254]/latest/meta-data/',
  'http://[::ffff:10.0.0.5]/',
  'http://[::127.0.0.1]/',
  'http://[::a00:5]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[64:ff9b:1::1]/',
  'http://[2002:7f00:1::]/',
  'http://[2002:a9fe:a9fe::1]/',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
  'http://[fec0::1]/',
  'http://[fe80::1]/',
  'http://[fd12::1]/',
  'http://[::1]/',
  'http://[::]/',
  'http://[ff02::1]/',
  'http://[2001:db8::1]/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://017700000001/',
  'http://0/',
  'http://100.64.0.1/',
  'http://198.18.0.1/',
  'http://192.0.0.8/',
  'http://255.255.255.255/',
  'http://224.0.0.1/',
  'http://203.0.113.7/',
];

const hostOf = (raw: string) => new URL(raw).hostname.replace(/^\[|\]$/g, '');

describe('address classification on the forms the URL parser really produces (H2)', () => {
  it.each(internalUrls)('refuses %s', async (raw) => {
    expect(isPrivateAddress(hostOf(raw))).toBe(true);
    expect(await checkDestination(raw, { allowPrivate: false }, async () => [])).toEqual({
      ok: false,
      problem: 'private_address',
    });
  });

  it.each(['http://93.184.216.34/', 'http://[2606:4700::1111]/', 'http://[2a00:1450:4001::200e]/', 'https://8.8.8.8/'])(
    'accepts the public %s',
    (raw) => {
      expect(isPrivateAddress(hostOf(raw))).toBe(false);
    },
  );
});

describe('the policy holds at connect time (H3)', () => {
  let server: http.Server;
  let port: number;
  let hits = 0;

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.end('internal secret');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    hits = 0;
  });

  const send = (url: string, lookup?: (host: string) => Promise<{ address: string; family: number }[]>) =>
    postWebhook(
      url,
      { headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2_000 },
      { allowPrivate: false, lookup },
    );

  it('refuses a name that resolved to a public address when registered and to loopback now (DNS rebinding)', async () => {
    let calls = 0;
    const rebinding = async () =>
      calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    expect(
      await checkDestination(`http://rebind.test:${port}/x`, { allowPrivate: false, lookup: rebinding }, rebinding),
    ).toMatchObject({ ok: true });
    await expect(send(`http://rebind.test:${port}/x`, rebinding)).rejects.toBeInstanceOf(DestinationRefusedError);
    expect(hits).toBe(0);
  });

  it('refuses a private literal address even when registration was bypassed', async () => {
    await expect(send(`http://[::ffff:7f00:1]:${port}/x`)).rejects.toBeInstanceOf(DestinationRefusedError);
    await expect(send(`http://127.0.0.1:${port}/x`)).rejects.toBeInstanceOf(DestinationRefusedError);
    expect(hits).toBe(0);
  });

  it('refuses when any resolved address is private', async () => {
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    await expect(send(`http://mixed.test:${port}/x`, mixed)).rejects.toBeInstanceOf(DestinationRefusedError);
    expect(hits).toBe(0);
  });

  it('delivers to a local receiver only when private destinations are allowed (development)', async () => {
    const res = await postWebhook(
      `http://localhost:${port}/x`,
      { headers: {}, body: '{}', timeoutMs: 2_000 },
      { allowPrivate: true },
    );
    expect(res.status).toBe(200);
    expect(hits).toBe(1);
  });
});

describe('WEBHOOK_PRIVATE_RECEIVERS: an operator names the private ip:port a webhook may reach, and only it', () => {
  const receivers = new Set(['10.1.2.3:8443', '[fd12::1]:443']);
  const policy = (lookup?: (host: string) => Promise<{ address: string }[]>) => ({
    allowPrivate: false,
    privateReceivers: receivers,
    lookup,
  });
  const none = async () => [];

  it.each(['https://10.1.2.3:8443/hooks', 'https://[fd12::1]/hooks', 'http://[::ffff:10.1.2.3]:8443/'])(
    'registers %s',
    async (url) => {
      expect(await checkDestination(url, policy(), none)).toMatchObject({ ok: true });
    },
  );

  it.each([
    'https://10.1.2.3/hooks',
    'https://10.1.2.3:8444/hooks',
    'https://10.1.2.4:8443/hooks',
    'http://127.0.0.1:8443/',
    'https://[fd12::1]:8443/',
  ])('still refuses %s (another port, another address, loopback)', async (url) => {
    expect(await checkDestination(url, policy(), none)).toEqual({ ok: false, problem: 'private_address' });
  });

  it('judges a name by what it resolves to: the listed address passes, with any other private answer it is refused', async () => {
    const listed = async () => [{ address: '10.1.2.3' }];
    const mixed = async () => [{ address: '10.1.2.3' }, { address: '10.0.0.5' }];
    expect(await checkDestination('https://bus.example.com:8443/', policy(listed), listed)).toMatchObject({ ok: true });
    expect(await checkDestination('https://bus.example.com:8443/', policy(mixed), mixed)).toEqual({
      ok: false,
      problem: 'private_address',
    });
  });

  // A connection to a real receiver on this machine's own non-loopback address, which is private
  // or reserved on every test machine (when it has none, the address test above covers the rule).
  const own = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  (own ? it : it.skip)(
    'delivers at connect time to the listed ip:port, and refuses the same address on another port',
    async () => {
      let hits = 0;
      const server = http.createServer((_req, res) => {
        hits++;
        res.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, own, resolve));
      const port = (server.address() as AddressInfo).port;
      try {
        const request = { headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2_000 };
        const listed = { allowPrivate: false, privateReceivers: new Set([`${own}:${port}`]) };
        expect((await postWebhook(`http://${own}:${port}/x`, request, listed)).status).toBe(200);
        const other = { allowPrivate: false, privateReceivers: new Set([`${own}:${port + 1}`]) };
        await expect(postWebhook(`http://${own}:${port}/x`, request, other)).rejects.toBeInstanceOf(
          DestinationRefusedError,
        );
        expect(hits).toBe(1);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  );
});
