/**
 * Mutual TLS to the PSP, for real (https on 127.0.0.1 with a CA, server and client certificates
 * made by openssl for this run): a PEM pair and a PKCS#12 file are both accepted identities, a
 * client without a certificate or without the PSP's CA gets nowhere, and plain http is refused
 * unless allowed (the sandbox in development and tests).
 */
import { ClientTls, readClientTls } from '../../core/net/clientTls';
import { ProviderError } from '../../core/provider';
import { PixApiClient } from '../../activities/provider/pixApi/pixApiClient';
import { pixApiTestbed, type PixApiTestbed } from '../support/pixApiTestbed';

const TXID = '0123456789abcdef0123456789abcdef';

// Real TLS handshakes and a PKI made by openssl: slow when the whole suite shares two cores.
jest.setTimeout(120_000);

let bed: PixApiTestbed;

beforeAll(async () => {
  bed = await pixApiTestbed();
});

afterAll(async () => {
  await bed.close();
});

beforeEach(() => {
  bed.psp.requests.length = 0;
});

afterEach(() => {
  expect(bed.violations).toEqual([]);
});

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('API Pix over mutual TLS', () => {
  it('reaches the PSP with a PEM certificate and key; the PSP sees our client certificate', async () => {
    expect(await bed.client().getCob(TXID)).toBeNull();
    expect(bed.psp.apiRequests().map((r) => r.clientCn)).toEqual(['pix-gateway test client']);
    expect(bed.psp.tokenRequests().map((r) => r.clientCn)).toEqual(['pix-gateway test client']);
  });

  it('reaches the PSP with a PKCS#12 file and its passphrase', async () => {
    const { tls, problems } = readClientTls({
      certFile: { name: 'cert', value: undefined },
      keyFile: { name: 'key', value: undefined },
      pfxFile: { name: 'pfx', value: bed.certs.clientPfxFile },
      pfxPassphrase: { name: 'passphrase', value: bed.certs.pfxPassphrase },
      caFile: { name: 'ca', value: bed.certs.caFile },
    });
    expect(problems).toEqual([]);
    expect(await bed.client({ tls }).getCob(TXID)).toBeNull();
    expect(bed.psp.apiRequests().map((r) => r.clientCn)).toEqual(['pix-gateway test client']);
  });

  it('is refused by the PSP without a client certificate: a transient failure, and nothing was received', async () => {
    const { tls } = readClientTls({
      certFile: { name: 'cert', value: undefined },
      keyFile: { name: 'key', value: undefined },
      pfxFile: { name: 'pfx', value: undefined },
      pfxPassphrase: { name: 'passphrase', value: undefined },
      caFile: { name: 'ca', value: bed.certs.caFile },
    });
    expect(tls?.identity).toBeNull();
    const err = await failure(bed.client({ tls }).getCob(TXID));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: true });
    expect(bed.psp.calls('all')).toEqual([]);
  });

  it('does not trust the PSP without its CA (a private CA must be configured)', async () => {
    const withoutCa = new ClientTls(bed.pemTls().identity, null);
    const err = await failure(bed.client({ tls: withoutCa }).getCob(TXID));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', transient: true });
    expect(bed.psp.calls('all')).toEqual([]);
  });

  it('refuses plain http URLs unless explicitly allowed', () => {
    const options = {
      baseUrl: 'http://127.0.0.1:1/api/v2',
      tokenUrl: 'http://127.0.0.1:1/oauth/token',
      clientId: 'id',
      clientSecret: 'secret',
      tls: null,
      timeoutMs: 1000,
    };
    expect(() => new PixApiClient({ ...options, allowPlainHttp: false })).toThrow(/https/);
    expect(
      () => new PixApiClient({ ...options, baseUrl: 'https://psp.example/api/v2', allowPlainHttp: false }),
    ).toThrow(/token URL must be an https URL/);
    expect(() => new PixApiClient({ ...options, baseUrl: 'ftp://psp.example/api/v2', allowPlainHttp: true })).toThrow(
      /https/,
    );
  });

  it('speaks plain http to a PSP (the sandbox) when allowed', async () => {
    const plain = await pixApiTestbed({ tls: false });
    try {
      expect(await plain.client().getCob(TXID)).toBeNull();
      expect(plain.psp.calls()).toHaveLength(1);
      expect(plain.violations).toEqual([]);
    } finally {
      await plain.close();
    }
  });
});
