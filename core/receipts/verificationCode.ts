/**
 * The code printed on a receipt (in its QR) that lets anyone check it is genuine.
 *
 *   code = base64url( version(1) ‖ nonce(12) ‖ AES-256-GCM( kind(1) ‖ digest(32) ‖ id ) ‖ tag(16) )
 *
 * - Unguessable and opaque: the document id is encrypted, and a fresh random nonce makes two codes
 *   for the same document differ, so a code reveals nothing and cannot be enumerated.
 * - Signed: the GCM tag is the MAC (keyed with the 32-byte receipt key, over the version byte as
 *   associated data too). A code changed in any bit, or made with another key, fails to open;
 *   OpenSSL compares the tag in constant time.
 * - It names the document (kind + id) and a SHA-256 digest of its key facts (amount, instant,
 *   endToEndId, masked parties). The verifier reloads the document and recomputes the digest, so
 *   a receipt whose facts were edited, or whose record changed since, is not authentic.
 *
 * ~106 characters: a small QR code. Pure apart from the nonce.
 */
import crypto from 'node:crypto';
import { RECEIPT_KINDS, type ReceiptFacts, type VerifiableKind } from './facts';
import { maskReceiptDocument } from './masking';

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const DIGEST_BYTES = 32;
const AAD = Buffer.from('pix-gateway receipt code v1');
/** Longest id we encode; ours are UUIDs (16 bytes packed). */
const MAX_ID_BYTES = 120;
const MAX_CODE_CHARS = 4 * Math.ceil((1 + NONCE_BYTES + 1 + DIGEST_BYTES + 1 + MAX_ID_BYTES + TAG_BYTES) / 3);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type VerifiedCode = { ok: true; kind: VerifiableKind; documentId: string; digest: string } | { ok: false };

/**
 * A 32-byte receipt key from a secret string (RECEIPT_SIGNING_KEY, or in development and tests
 * the credentials encryption key): HKDF with its own label, so the key reveals neither secret and
 * differs from every other key derived from the same secret.
 */
export function deriveReceiptKey(secret: string): Buffer {
  if (!secret) throw new Error('a secret is required to derive the receipt key');
  return Buffer.from(crypto.hkdfSync('sha256', secret, 'pix-gateway', 'receipt-verification-code', 32));
}

/** RECEIPT_SIGNING_KEY when set (production requires it), else derived from the encryption key. */
export function receiptKeyFor(opts: { receiptSigningKey?: string | null; credentialsEncryptionKey: string }): Buffer {
  return deriveReceiptKey(opts.receiptSigningKey || `receipts:${opts.credentialsEncryptionKey}`);
}

/** Where the QR code points: `{PUBLIC_BASE_URL}/receipts/verify?code=…` (base64url needs no escaping). */
export function receiptVerifyUrl(publicBaseUrl: string, code: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/receipts/verify?code=${code}`;
}

function canonicalInstant(iso: string): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) throw new RangeError('occurredAt is not a valid date');
  return t.toISOString();
}

/**
 * SHA-256 (hex) of the facts the receipt vouches for, in a fixed order. Parties enter masked, as
 * printed. Refunds do not enter: a receipt of a payment stays true after a later devolução (the
 * verify page and a new receipt show the refunds).
 */
export function receiptDigest(facts: ReceiptFacts): string {
  const party = (p: ReceiptFacts['payer']) => (p ? [p.name, maskReceiptDocument(p.document)] : null);
  const canonical = JSON.stringify([
    'receipt-digest-v1',
    facts.kind,
    facts.documentId,
    facts.amountCents,
    canonicalInstant(facts.occurredAt),
    facts.endToEndId,
    party(facts.payer),
    party(facts.receiver),
  ]);
  return crypto.createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** Constant-time: does the digest in a code match these facts? */
export function digestMatches(facts: ReceiptFacts, digestHex: string): boolean {
  return hexDigestsEqual(receiptDigest(facts), digestHex);
}

/** Constant-time comparison of two hex digests (any kind's). */
export function hexDigestsEqual(expectedHex: string, digestHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const given = Buffer.from(digestHex, 'hex');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

function checkKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== 32) throw new RangeError('the receipt key must be 32 bytes');
}

function encodeId(id: string): Buffer {
  if (UUID.test(id)) return Buffer.concat([Buffer.from([0]), Buffer.from(id.replace(/-/g, ''), 'hex')]);
  const raw = Buffer.from(id, 'utf8');
  if (raw.length === 0 || raw.length > MAX_ID_BYTES) throw new RangeError('documentId must be 1 to 120 bytes');
  return Buffer.concat([Buffer.from([1]), raw]);
}

function decodeId(buf: Buffer): string | null {
  if (buf.length === 17 && buf[0] === 0) {
    const h = buf.subarray(1).toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  if (buf.length >= 2 && buf[0] === 1) return buf.subarray(1).toString('utf8');
  return null;
}

export function createVerificationCode(facts: ReceiptFacts, key: Buffer): string {
  return sealCode(facts.kind, receiptDigest(facts), facts.documentId, key);
}

/**
 * A code for any verifiable kind, from the document's id and the SHA-256 (hex) of its facts: the
 * receipts above, and certificates (core/receipts/certificate.ts certificateDigest).
 */
export function sealCode(kind: VerifiableKind, digestHex: string, documentId: string, key: Buffer): string {
  checkKey(key);
  const kindIndex = RECEIPT_KINDS.indexOf(kind);
  if (kindIndex < 0) throw new RangeError(`unknown receipt kind ${String(kind)}`);
  const digest = Buffer.from(digestHex, 'hex');
  if (digest.length !== DIGEST_BYTES) throw new RangeError('the digest must be 32 bytes of hex');
  const plain = Buffer.concat([Buffer.from([kindIndex]), digest, encodeId(documentId)]);
  const nonce = crypto.randomBytes(NONCE_BYTES);
  const header = Buffer.from([VERSION]);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.concat([AAD, header]));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([header, nonce, body, cipher.getAuthTag()]).toString('base64url');
}

/** Opens a code; anything malformed, altered or made with another key is `{ ok: false }`, never a throw. */
export function verifyVerificationCode(code: unknown, key: Buffer): VerifiedCode {
  checkKey(key);
  if (typeof code !== 'string' || code.length > MAX_CODE_CHARS || !/^[A-Za-z0-9_-]+$/.test(code)) return { ok: false };
  const raw = Buffer.from(code, 'base64url');
  // Canonical encoding only: a code with other trailing bits is not the one we issued.
  if (raw.toString('base64url') !== code) return { ok: false };
  if (raw.length < 1 + NONCE_BYTES + 1 + DIGEST_BYTES + 2 + TAG_BYTES || raw[0] !== VERSION) return { ok: false };
  const nonce = raw.subarray(1, 1 + NONCE_BYTES);
  const body = raw.subarray(1 + NONCE_BYTES, raw.length - TAG_BYTES);
  const tag = raw.subarray(raw.length - TAG_BYTES);
  let plain: Buffer;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.concat([AAD, raw.subarray(0, 1)]));
    decipher.setAuthTag(tag);
    plain = Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    return { ok: false };
  }
  const kind = RECEIPT_KINDS[plain[0]];
  const documentId = decodeId(plain.subarray(1 + DIGEST_BYTES));
  if (!kind || documentId === null) return { ok: false };
  return { ok: true, kind, documentId, digest: plain.subarray(1, 1 + DIGEST_BYTES).toString('hex') };
}
