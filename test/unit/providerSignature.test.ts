import { createHmac } from 'node:crypto';
import { signProviderCallback, verifyProviderCallbackSignature } from '../../core/pix/providerSignature';

const secret = 'whsec_test_secret';
const body = JSON.stringify({ eventId: 'evt_1', type: 'charge.paid', charge: { id: 'sbx_ch_1', amountCents: 100 } });
const now = 1_700_000_000_000;

function signed(ts = now) {
  return { ts: String(ts), sig: signProviderCallback(body, ts, secret) };
}

describe('provider callback signature', () => {
  it('accepts a fresh, correct signature (string or Buffer body)', () => {
    const { ts, sig } = signed();
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyProviderCallbackSignature(body, ts, sig, secret, now)).toBe(true);
    expect(verifyProviderCallbackSignature(Buffer.from(body), ts, sig, secret, now + 1_000)).toBe(true);
  });

  it('is HMAC-SHA256 of `${timestamp}.${rawBody}`', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signProviderCallback(body, now, secret)).toBe(expected);
  });

  it('rejects a wrong secret', () => {
    const { ts, sig } = signed();
    expect(verifyProviderCallbackSignature(body, ts, sig, 'another-secret', now)).toBe(false);
  });

  it('rejects an altered body, even by one byte or whitespace', () => {
    const { ts, sig } = signed();
    expect(verifyProviderCallbackSignature(body.replace('100', '900'), ts, sig, secret, now)).toBe(false);
    expect(verifyProviderCallbackSignature(`${body} `, ts, sig, secret, now)).toBe(false);
  });

  it('rejects a timestamp swapped from another signature', () => {
    const { sig } = signed();
    expect(verifyProviderCallbackSignature(body, String(now + 1), sig, secret, now)).toBe(false);
  });

  it('rejects old and far-future timestamps, honouring the tolerance', () => {
    const old = signed(now - 300_001);
    expect(verifyProviderCallbackSignature(body, old.ts, old.sig, secret, now)).toBe(false);
    const edge = signed(now - 300_000);
    expect(verifyProviderCallbackSignature(body, edge.ts, edge.sig, secret, now)).toBe(true);
    const future = signed(now + 300_001);
    expect(verifyProviderCallbackSignature(body, future.ts, future.sig, secret, now)).toBe(false);
    const custom = signed(now - 10_000);
    expect(verifyProviderCallbackSignature(body, custom.ts, custom.sig, secret, now, 5_000)).toBe(false);
  });

  it('rejects missing or malformed headers without throwing', () => {
    const { ts, sig } = signed();
    const cases: Array<[unknown, unknown]> = [
      [undefined, sig],
      [ts, undefined],
      [null, null],
      ['', sig],
      [ts, ''],
      ['12abc', sig],
      [`${ts}.5`, sig],
      ['-1', sig],
      [ts, sig.slice(0, 63)],
      [ts, `${sig}00`],
      [ts, `${sig.slice(0, 63)}g`],
      [ts, `sha256=${sig}`],
      [[ts, ts], sig],
      [ts, [sig, sig]],
    ];
    for (const [t, s] of cases) {
      expect(verifyProviderCallbackSignature(body, t as string, s as string, secret, now)).toBe(false);
    }
  });

  it('rejects when the secret is empty', () => {
    const { ts, sig } = signed();
    expect(verifyProviderCallbackSignature(body, ts, sig, '', now)).toBe(false);
    expect(() => signProviderCallback(body, now, '')).toThrow();
  });
});
