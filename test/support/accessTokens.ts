/**
 * Access tokens for tests that cannot log in over HTTP (a fuzzer may lock the login of its IP):
 * a real session row and a token signed as the API signs (the key the API derives in tests).
 */
import crypto from 'node:crypto';
import { AccessTokens, derivedJwtSecret } from '../../api/identity/auth/accessTokens';
import { UserSession } from '../../db/models';

export function accessTokenMinter(encryptionKey: string, userId: string): () => Promise<string> {
  const tokens = new AccessTokens([derivedJwtSecret(encryptionKey)]);
  return async () => {
    const sessionId = crypto.randomUUID();
    await UserSession.create({ id: sessionId, userId });
    return tokens.issue({ userId, sessionId });
  };
}
