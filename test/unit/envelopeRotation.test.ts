/**
 * A master key rotation of the connections' envelopes: a keyring holds the old key (k1, from
 * CREDENTIALS_ENCRYPTION_KEY) and the new one, seals under the new, opens both; rewrapEnvelope
 * moves an envelope under the current key without touching its ciphertext; a malformed
 * CONNECTION_MASTER_KEYS is refused in words that never carry a key.
 */
import crypto from 'node:crypto';
import { loadConfig } from '../../config';
import {
  credentialsKeyring,
  EnvelopeError,
  openEnvelope,
  parseMasterKeys,
  rewrapEnvelope,
  sealEnvelope,
} from '../../core/crypto/envelope';

const k1 = crypto.randomBytes(32).toString('hex');
const k2 = crypto.randomBytes(32).toString('hex');
const ciphertextOf = (envelope: string) => envelope.split(':')[3];

it('seals under the current key, opens under either, and re-wraps only the data key', () => {
  const old = credentialsKeyring(k1);
  const rotated = credentialsKeyring(k1, { keys: { k2 }, currentKeyId: 'k2' });
  const sealed = sealEnvelope('segredo do cliente', old);
  expect(sealed.masterKeyId).toBe('k1');
  expect(openEnvelope(sealed.envelope, rotated)).toBe('segredo do cliente');

  const moved = rewrapEnvelope(sealed.envelope, rotated);
  expect(moved.masterKeyId).toBe('k2');
  expect(moved.envelope.startsWith('env1:k2:')).toBe(true);
  expect(ciphertextOf(moved.envelope)).toBe(ciphertextOf(sealed.envelope));
  expect(openEnvelope(moved.envelope, rotated)).toBe('segredo do cliente');
  expect(() => openEnvelope(moved.envelope, old)).toThrow('master key k2, which is not configured');
  // Already under the current key: unchanged.
  expect(rewrapEnvelope(moved.envelope, rotated).envelope).toBe(moved.envelope);
  expect(sealEnvelope('novo', rotated).masterKeyId).toBe('k2');
});

it('refuses a rewrap whose old key is gone, and an envelope altered on the way', () => {
  const sealed = sealEnvelope('x', credentialsKeyring(k1)).envelope;
  const other = crypto.randomBytes(32).toString('hex');
  expect(() => rewrapEnvelope(sealed, credentialsKeyring(other, { keys: { k2 }, currentKeyId: 'k2' }))).toThrow(
    EnvelopeError,
  );
});

it('reads CONNECTION_MASTER_KEYS as id=key pairs and names problems without a key', () => {
  expect(parseMasterKeys(`k2=${k2}, k3=${k1}`)).toEqual({ k2, k3: k1 });
  for (const bad of [`=${k2}`, `K2=${k2}`, 'k2=', `k2=${k2},k2=${k1}`]) {
    let message = '';
    try {
      parseMasterKeys(bad);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).not.toBe('');
    expect(message).not.toContain(k2);
    expect(message).not.toContain(k1);
  }
  expect(() => credentialsKeyring(k1, { keys: { k1: k2 }, currentKeyId: 'k1' })).toThrow(
    "CREDENTIALS_ENCRYPTION_KEY's",
  );
  expect(() => credentialsKeyring(k1, { keys: { k2 }, currentKeyId: 'k9' })).toThrow('no master key with id k9');
});

it('configuration: a rotation is read beside CREDENTIALS_ENCRYPTION_KEY; a wrong one stops the start without the key in the message', () => {
  const base = {
    NODE_ENV: 'test',
    DATABASE_URL: 'postgres://gateway@127.0.0.1:5432/gateway',
    PROVIDER_API_KEY: 'provider-key',
    PROVIDER_CALLBACK_SECRET: 'callback-secret',
    CREDENTIALS_ENCRYPTION_KEY: k1,
  };
  expect(loadConfig({ ...base }).connectionMasterKeys).toBeNull();
  expect(
    loadConfig({ ...base, CONNECTION_MASTER_KEYS: `k2=${k2}`, CONNECTION_MASTER_KEY_ID: 'k2' }).connectionMasterKeys,
  ).toEqual({ keys: { k2 }, currentKeyId: 'k2' });
  const short = k2.slice(0, 40);
  let message = '';
  try {
    loadConfig({ ...base, CONNECTION_MASTER_KEYS: `k2=${short}`, CONNECTION_MASTER_KEY_ID: 'k2' });
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).toContain('CONNECTION_MASTER_KEYS');
  expect(message).not.toContain(short);
});
