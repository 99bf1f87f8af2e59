/**
 * Signed upload URLs of the local store: any edit to the key, expiry, content type, size or
 * signature is refused as tampered; a genuine URL past its expiry is refused as expired. The
 * S3 store presigns path-style URLs that sign the Content-Type header.
 */
import { LocalObjectStore } from '../../core/storage/localObjectStore';
import { S3ObjectStore } from '../../core/storage/s3ObjectStore';
import { mediaTypeOf, signUpload, verifyUpload } from '../../core/storage/uploadSignature';

// The SDK warns once per process that its 2027 releases need Node 22; not this test's concern.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const SECRET = 'test-upload-secret-0123456789abcdef0123456789';
const KEY = 'avatars/42/6f1c2d9e-5b7a-4c1e-9a6d-2f8b3c4d5e6f';
const NOW = Date.UTC(2030, 0, 1);

function signedQuery(over: Partial<Record<'expires' | 'contentType' | 'maxBytes' | 'signature', string>> = {}) {
  const grant = { key: KEY, expires: NOW / 1000 + 600, contentType: 'image/png', maxBytes: 2_097_152 };
  return {
    expires: String(grant.expires),
    contentType: grant.contentType,
    maxBytes: String(grant.maxBytes),
    signature: signUpload(grant, SECRET),
    ...over,
  };
}

describe('upload URL signature', () => {
  it('accepts the URL as signed, until its expiry', () => {
    expect(verifyUpload(KEY, signedQuery(), SECRET, NOW)).toEqual({
      ok: true,
      grant: { key: KEY, expires: NOW / 1000 + 600, contentType: 'image/png', maxBytes: 2_097_152 },
    });
    expect(verifyUpload(KEY, signedQuery(), SECRET, NOW + 599_999).ok).toBe(true);
  });

  it('refuses it as expired from the expiry on', () => {
    expect(verifyUpload(KEY, signedQuery(), SECRET, NOW + 600_000)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyUpload(KEY, signedQuery(), SECRET, NOW + 86_400_000)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    ['a later expiry', { expires: String(NOW / 1000 + 6000) }],
    ['another content type', { contentType: 'text/html' }],
    ['a larger size', { maxBytes: '999999999' }],
    ['another signature', { signature: 'a'.repeat(64) }],
  ])('refuses %s as tampered', (_what, over) => {
    expect(verifyUpload(KEY, signedQuery(over), SECRET, NOW)).toEqual({ ok: false, reason: 'signature' });
  });

  it('refuses the URL for another key, or signed with another secret', () => {
    expect(verifyUpload('avatars/43/6f1c2d9e-5b7a-4c1e-9a6d-2f8b3c4d5e6f', signedQuery(), SECRET, NOW)).toEqual({
      ok: false,
      reason: 'signature',
    });
    expect(verifyUpload(KEY, signedQuery(), `${SECRET}x`, NOW)).toEqual({ ok: false, reason: 'signature' });
  });

  it.each([
    ['a missing signature', { signature: undefined }],
    ['a repeated parameter', { expires: ['1', '2'] }],
    ['a signature that is not hex', { signature: 'z'.repeat(64) }],
    ['a short signature', { signature: 'ab' }],
    ['a non-numeric expiry', { expires: '1e10' }],
    ['a content type with a newline', { contentType: 'image/png\nx' }],
  ])('refuses %s as malformed', (_what, over) => {
    expect(verifyUpload(KEY, { ...signedQuery(), ...over } as Record<string, unknown>, SECRET, NOW)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('reads the media type of a Content-Type header without its parameters', () => {
    expect(mediaTypeOf('image/PNG; charset=binary')).toBe('image/png');
    expect(mediaTypeOf(undefined)).toBe('');
  });
});

describe('LocalObjectStore.presignPut', () => {
  it('answers a URL under PUBLIC_BASE_URL/uploads that its own verify accepts, then refuses once expired', async () => {
    let now = NOW;
    const store = new LocalObjectStore({
      dir: '/tmp/unused-uploads',
      publicBaseUrl: 'http://127.0.0.1:3000/',
      signingSecret: SECRET,
      now: () => now,
    });
    const put = await store.presignPut(KEY, 'image/webp', 1000, 60);
    const url = new URL(put.url);
    expect(`${url.origin}${url.pathname}`).toBe(`http://127.0.0.1:3000/uploads/${KEY}`);
    expect(put.headers).toEqual({ 'Content-Type': 'image/webp' });
    const query = Object.fromEntries(url.searchParams);
    expect(query).toMatchObject({ contentType: 'image/webp', maxBytes: '1000', expires: String(NOW / 1000 + 60) });
    expect(store.verify(KEY, query).ok).toBe(true);
    now += 60_000;
    expect(store.verify(KEY, query)).toEqual({ ok: false, reason: 'expired' });
  });
});

describe('S3ObjectStore.presignPut', () => {
  it('presigns a path-style PUT that signs the Content-Type, without any network call', async () => {
    const store = new S3ObjectStore({
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'gateway-uploads',
      region: 'us-east-1',
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'secret-for-unit-test-only',
    });
    const put = await store.presignPut(KEY, 'image/jpeg', 2_097_152, 600);
    const url = new URL(put.url);
    expect(`${url.origin}${url.pathname}`).toBe(`http://127.0.0.1:9000/gateway-uploads/${KEY}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(
      expect.arrayContaining(['content-type', 'host']),
    );
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request$/);
    expect(put.headers).toEqual({ 'Content-Type': 'image/jpeg' });
    expect(store.publicUrl(KEY)).toBe(`http://127.0.0.1:9000/gateway-uploads/${KEY}`);
  });
});
