/**
 * Access tokens of the application API: JWTs (HS256, signed and verified with `jose`) that live
 * 15 minutes and name their session (`sid`), so logging out or a revoked refresh family ends
 * them at once. The key id (`kid`, a hash of the key) picks the verifying key, so keys rotate
 * without a flag day: sign with the first, accept every listed one.
 */
import crypto from 'node:crypto';
import { SignJWT, jwtVerify, type JWTPayload } from 'jose';

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
const ISSUER = 'pix-gateway';
const AUDIENCE = 'pix-gateway-app';

export interface AccessClaims {
  userId: string;
  sessionId: string;
}

interface Key {
  kid: string;
  secret: Uint8Array;
}

function toKey(secret: string): Key {
  return {
    kid: crypto.createHash('sha256').update(secret).digest('hex').slice(0, 16),
    secret: new TextEncoder().encode(secret),
  };
}

/** Development and tests: a signing key derived from the credentials encryption key (no new secret to manage). */
export function derivedJwtSecret(encryptionKey: string): string {
  return Buffer.from(crypto.hkdfSync('sha256', encryptionKey, 'pix-gateway', 'access-token-signing', 32)).toString(
    'hex',
  );
}

export class AccessTokens {
  private readonly keys: Key[];

  constructor(secrets: string[]) {
    if (secrets.length === 0) throw new Error('at least one access token key is required');
    this.keys = secrets.map(toKey);
  }

  async issue(claims: AccessClaims, now = new Date()): Promise<string> {
    const [key] = this.keys;
    const iat = Math.floor(now.getTime() / 1000);
    return new SignJWT({ sid: claims.sessionId, typ: 'access' })
      .setProtectedHeader({ alg: 'HS256', kid: key.kid, typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
      .setJti(crypto.randomUUID())
      .sign(key.secret);
  }

  /** The claims of a valid, unexpired token; null for anything else (the caller answers 401). */
  async verify(token: string): Promise<AccessClaims | null> {
    try {
      const { payload } = await jwtVerify<JWTPayload & { sid?: unknown; typ?: unknown }>(
        token,
        (header) => {
          const key = this.keys.find((k) => k.kid === header.kid);
          if (!key) throw new Error('unknown key id');
          return key.secret;
        },
        { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'], requiredClaims: ['sub', 'exp', 'iat'] },
      );
      if (payload.typ !== 'access' || typeof payload.sid !== 'string' || typeof payload.sub !== 'string') return null;
      return { userId: payload.sub, sessionId: payload.sid };
    } catch {
      return null;
    }
  }
}
