/**
 * Outgoing webhooks cannot reach internal networks.
 * Hosts are written as URLs and read back through the WHATWG parser, as merchants' URLs are:
 * it turns [::ffff:169.254.169.254] into [::ffff:a9fe:a9fe] and 2130706433 into 127.0.0.1.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { isPrivateAddress, parsePrivateReceivers, privateReceiversOf } from '../../core/net/destination';
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

/** Merchants: a private receiver's entry names shop (and partner); stranger is named by none. */
const shop = crypto.randomUUID();
const partner = crypto.randomUUID();
const stranger = crypto.randomUUID();

const hostOf = (raw: string) => new URL(raw).hostname.replace(/^\[|\]$/g, '');

describe('address classification on the forms the URL parser really produces', () => {
  it.each(internalUrls)('refuses %s', async (raw) => {
    expect(isPrivateAddress(hostOf(raw))).toBe(true);
    expect(await checkDestination(raw, shop, { allowPrivate: false }, async () => [])).toEqual({
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

describe('the policy holds at connect time', () => {
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
      shop,
      { headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2_000 },
      { allowPrivate: false, lookup },
    );

  it('refuses a name that resolved to a public address when registered and to loopback now (DNS rebinding)', async () => {
    let calls = 0;
    const rebinding = async () =>
      calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    expect(
      await checkDestination(
        `http://rebind.test:${port}/x`,
        shop,
        { allowPrivate: false, lookup: rebinding },
        rebinding,
      ),
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
    const sent = await postWebhook(
      `http://localhost:${port}/x`,
      shop,
      { headers: {}, body: '{}', timeoutMs: 2_000 },
      { allowPrivate: true },
    );
    expect(sent.response.status).toBe(200);
    expect(hits).toBe(1);
  });
});

describe('WEBHOOK_PRIVATE_RECEIVERS: each entry names a private ip:port and the merchants who may use it', () => {
  it('parses `ip:port=merchant|merchant`, IPv6 in brackets, entries separated by commas', () => {
    const upper = partner.toUpperCase();
    expect(
      parsePrivateReceivers(
        ` 10.1.2.3:8443 = ${shop} | ${upper} , [FD12::1]:443=${partner}, [::ffff:10.9.8.7]:80=${shop}`,
      ),
    ).toEqual({
      ok: true,
      receivers: [
        { receiver: '10.1.2.3:8443', merchantIds: [shop, partner] },
        { receiver: '[fd12::1]:443', merchantIds: [partner] },
        { receiver: '10.9.8.7:80', merchantIds: [shop] },
      ],
    });
    expect(parsePrivateReceivers('')).toEqual({ ok: true, receivers: [] });
    // One receiver written twice: its merchants together.
    expect(parsePrivateReceivers(`10.1.2.3:8443=${shop},10.1.2.3:8443=${partner}`)).toEqual({
      ok: true,
      receivers: [{ receiver: '10.1.2.3:8443', merchantIds: [shop, partner] }],
    });
  });

  it.each([
    ['10.1.2.3:8443', /names no merchant/],
    ['10.1.2.3:8443=', /names no merchant/],
    ['10.1.2.3:8443= |', /names no merchant/],
    ['10.1.2.3:8443=shop-1', /not a merchant id/],
    ['10.1.2.3', /ip:port=merchantId/],
    ['10.1.2.3:0=M', /ip:port=merchantId/],
    ['10.1.2.3:65536=M', /ip:port=merchantId/],
    ['fd12::1:443=M', /ip:port=merchantId/],
    ['[10.1.2.3]:443=M', /ip:port=merchantId/],
    ['receiver.internal:443=M', /ip:port=merchantId/],
    ['127.0.0.1:80=M', /loopback/],
    ['[::1]:443=M', /loopback/],
    ['[::ffff:127.0.0.1]:80=M', /loopback/],
    ['0.0.0.0:80=M', /unspecified/],
    ['[::]:80=M', /unspecified/],
    ['169.254.169.254:80=M', /link-local/],
    ['169.254.10.1:8080=M', /link-local/],
    ['[::ffff:169.254.169.254]:80=M', /link-local/],
    ['[fe80::1]:80=M', /link-local/],
    ['224.0.0.1:80=M', /multicast/],
    ['[ff02::1]:80=M', /multicast/],
    ['255.255.255.255:80=M', /broadcast/],
    ['[fd00:ec2::254]:80=M', /metadata/],
    ['[fd20:ce::254]:80=M', /metadata/],
    ['100.100.100.200:80=M', /metadata/],
    ['192.0.0.192:80=M', /metadata/],
    ['[::7f00:1]:8080=M', /embeds an IPv4 address/],
    ['[::127.0.0.1]:8080=M', /embeds an IPv4 address/],
    ['[::a9fe:a9fe]:80=M', /embeds an IPv4 address/],
    ['[64:ff9b::7f00:1]:8080=M', /embeds an IPv4 address/],
    ['[64:ff9b::a9fe:a9fe]:80=M', /embeds an IPv4 address/],
    ['[64:ff9b:1::a01:203]:80=M', /embeds an IPv4 address/],
    ['[2002:7f00:1::]:80=M', /embeds an IPv4 address/],
    ['[2002:a9fe:a9fe::1]:80=M', /embeds an IPv4 address/],
    ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]:80=M', /embeds an IPv4 address/],
    ['93.184.216.34:443=M', /public/],
    ['[2606:4700::1111]:443=M', /public/],
  ])('refuses %s', (entry, problem) => {
    const raw = entry.replace(/=M$/, `=${shop}`);
    const parsed = parsePrivateReceivers(`10.1.2.3:8443=${shop}, ${raw}`);
    expect(parsed).toEqual({ ok: false, entry: raw, problem: expect.stringMatching(problem) });
  });

  const receivers = [
    { receiver: '10.1.2.3:8443', merchantIds: [shop] },
    { receiver: '[fd12::1]:443', merchantIds: [shop, partner] },
  ];
  const policy = (lookup?: (host: string) => Promise<{ address: string }[]>) => ({
    allowPrivate: false,
    privateReceivers: receivers,
    lookup,
  });
  const none = async () => [];

  it('lists the receivers of one merchant', () => {
    expect([...privateReceiversOf(receivers, shop)]).toEqual(['10.1.2.3:8443', '[fd12::1]:443']);
    expect([...privateReceiversOf(receivers, partner)]).toEqual(['[fd12::1]:443']);
    expect([...privateReceiversOf(receivers, stranger)]).toEqual([]);
    expect([...privateReceiversOf(undefined, shop)]).toEqual([]);
  });

  it.each(['https://10.1.2.3:8443/hooks', 'https://[fd12::1]/hooks', 'http://[::ffff:10.1.2.3]:8443/'])(
    'registers %s for the merchant it names, and refuses it to another merchant',
    async (url) => {
      expect(await checkDestination(url, shop, policy(), none)).toMatchObject({ ok: true });
      expect(await checkDestination(url, stranger, policy(), none)).toEqual({ ok: false, problem: 'private_address' });
    },
  );

  it('refuses a receiver to a merchant its entry does not name, even one named by another entry', async () => {
    expect(await checkDestination('https://[fd12::1]/x', partner, policy(), none)).toMatchObject({ ok: true });
    expect(await checkDestination('https://10.1.2.3:8443/x', partner, policy(), none)).toEqual({
      ok: false,
      problem: 'private_address',
    });
  });

  it.each([
    'https://10.1.2.3/hooks',
    'https://10.1.2.3:8444/hooks',
    'https://10.1.2.4:8443/hooks',
    'http://127.0.0.1:8443/',
    'https://[fd12::1]:8443/',
  ])('still refuses %s to its merchant (another port, another address, loopback)', async (url) => {
    expect(await checkDestination(url, shop, policy(), none)).toEqual({ ok: false, problem: 'private_address' });
  });

  it('judges a name by what it resolves to, for the merchant asking', async () => {
    const listed = async () => [{ address: '10.1.2.3' }];
    const mixed = async () => [{ address: '10.1.2.3' }, { address: '10.0.0.5' }];
    const url = 'https://bus.example.com:8443/';
    expect(await checkDestination(url, shop, policy(listed), listed)).toMatchObject({ ok: true });
    expect(await checkDestination(url, stranger, policy(listed), listed)).toEqual({
      ok: false,
      problem: 'private_address',
    });
    expect(await checkDestination(url, shop, policy(mixed), mixed)).toEqual({ ok: false, problem: 'private_address' });
  });

  // A connection to a real receiver on this machine's own non-loopback address, which is private
  // or reserved on every test machine (when it has none, the address test above covers the rule).
  const own = Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  (own ? it : it.skip)(
    'delivers at connect time to the listed ip:port for its merchant only, and says the answer came from a private receiver',
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
        const listed = { allowPrivate: false, privateReceivers: [{ receiver: `${own}:${port}`, merchantIds: [shop] }] };
        const sent = await postWebhook(`http://${own}:${port}/x`, shop, request, listed);
        expect({ status: sent.response.status, privateReceiver: sent.privateReceiver }).toEqual({
          status: 200,
          privateReceiver: true,
        });
        await expect(postWebhook(`http://${own}:${port}/x`, stranger, request, listed)).rejects.toBeInstanceOf(
          DestinationRefusedError,
        );
        const other = {
          allowPrivate: false,
          privateReceivers: [{ receiver: `${own}:${port + 1}`, merchantIds: [shop] }],
        };
        await expect(postWebhook(`http://${own}:${port}/x`, shop, request, other)).rejects.toBeInstanceOf(
          DestinationRefusedError,
        );
        expect(hits).toBe(1);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  );
});
