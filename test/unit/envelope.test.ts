import crypto from 'node:crypto';
import {
  credentialsKeyring,
  envelopeKeyId,
  EnvelopeError,
  masterKeyring,
  openEnvelope,
  sealEnvelope,
} from '../../core/crypto/envelope';
import { parseMaterial, serializeMaterial } from '../../core/connections/material';

const key = () => crypto.randomBytes(32);

describe('envelope encryption', () => {
  const k1 = key();
  const ring = masterKeyring({ k1 }, 'k1');
  const secret = 'client-secret-ÿ-' + crypto.randomBytes(8).toString('hex');

  it('opens what it sealed, under the key id it names', () => {
    const sealed = sealEnvelope(secret, ring);
    expect(sealed.masterKeyId).toBe('k1');
    expect(envelopeKeyId(sealed.envelope)).toBe('k1');
    expect(openEnvelope(sealed.envelope, ring)).toBe(secret);
  });

  it('uses a fresh data key each time: the same plaintext never seals the same', () => {
    const a = sealEnvelope(secret, ring).envelope.split(':');
    const b = sealEnvelope(secret, ring).envelope.split(':');
    expect(a[2]).not.toBe(b[2]);
    expect(a[3]).not.toBe(b[3]);
  });

  it('refuses another master key under the same id, in its own words', () => {
    const sealed = sealEnvelope(secret, ring);
    const other = masterKeyring({ k1: key() }, 'k1');
    expect(() => openEnvelope(sealed.envelope, other)).toThrow(EnvelopeError);
    expect(() => openEnvelope(sealed.envelope, other)).toThrow(/cannot be opened with master key k1/);
  });

  it('refuses an envelope whose master key is not configured', () => {
    const sealed = sealEnvelope(secret, ring);
    expect(() => openEnvelope(sealed.envelope, masterKeyring({ k2: key() }, 'k2'))).toThrow(
      /sealed with master key k1, which is not configured/,
    );
  });

  it('refuses any altered byte of the wrapped key or the ciphertext', () => {
    const { envelope } = sealEnvelope(secret, ring);
    const parts = envelope.split(':');
    for (const index of [2, 3]) {
      const altered = [...parts];
      const box = altered[index].split('.');
      const ct = Buffer.from(box[3], 'base64url');
      ct[0] ^= 1;
      box[3] = ct.toString('base64url');
      altered[index] = box.join('.');
      expect(() => openEnvelope(altered.join(':'), ring)).toThrow(EnvelopeError);
    }
    expect(() => openEnvelope(envelope.replace(/^env1/, 'env9'), ring)).toThrow(/not an envelope/);
  });

  it('keeps no plaintext in the stored text', () => {
    const material = serializeMaterial({
      clientSecret: secret,
      identity: { kind: 'pfx', pfx: Buffer.from('PKCS12-BYTES'), passphrase: 'pass-phrase' },
      ca: null,
    });
    const { envelope } = sealEnvelope(material, ring);
    for (const plain of [secret, 'pass-phrase', Buffer.from('PKCS12-BYTES').toString('base64'), 'clientSecret'])
      expect(envelope).not.toContain(plain);
    expect(parseMaterial(openEnvelope(envelope, ring)).clientSecret).toBe(secret);
  });

  it('opens old rows after a later master key is added (the key id travels with the envelope)', () => {
    const old = sealEnvelope(secret, ring).envelope;
    const later = masterKeyring({ k1, k2: key() }, 'k2');
    const fresh = sealEnvelope(secret, later);
    expect(fresh.masterKeyId).toBe('k2');
    expect(openEnvelope(old, later)).toBe(secret);
    expect(openEnvelope(fresh.envelope, later)).toBe(secret);
  });

  it('takes CREDENTIALS_ENCRYPTION_KEY as k1', () => {
    const hex = k1.toString('hex');
    expect(openEnvelope(sealEnvelope(secret, credentialsKeyring(hex)).envelope, ring)).toBe(secret);
  });
});
