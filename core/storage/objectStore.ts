/**
 * Where uploaded files (avatars) live: an S3-compatible bucket in production, or a directory
 * served by the API itself (localObjectStore.ts). Clients upload straight to the store with a
 * presigned PUT, so file bytes never pass through a JSON route, and the API only checks the
 * object afterwards (head + its first bytes).
 */

export interface PresignedPut {
  url: string;
  /** Headers the client must send with the PUT exactly as given (the signature covers them). */
  headers: Record<string, string>;
}

export interface ObjectStore {
  /**
   * A URL that accepts one PUT of `contentType` to `key` until `expiresInSeconds` from now.
   * The local store also refuses bodies over `maxBytes`; S3 cannot enforce a size on a
   * presigned PUT, so callers check the size afterwards with `head`.
   */
  presignPut(key: string, contentType: string, maxBytes: number, expiresInSeconds: number): Promise<PresignedPut>;
  /** The object's size, or null when there is none. */
  head(key: string): Promise<{ size: number } | null>;
  /** Up to `bytes` first bytes of the object (fewer if it is shorter), or null when there is none. */
  readStart(key: string, bytes: number): Promise<Buffer | null>;
  /** Where anyone can read the object (e.g. an avatar's `avatarUrl`). */
  publicUrl(key: string): string;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
}

/**
 * Keys are exactly three segments, `<scope>/<owner>/<name>` (avatars/<userId>/<uuid>), each of
 * letters, digits, `_` and `-`, starting with a letter or digit. No dots at all, so no `..`,
 * no hidden files and no extension tricks; no leading slash, so never an absolute path; and a
 * fixed shape, so the local store's routes are plain parameters (`/uploads/:scope/:owner/:name`).
 */
const SEGMENT = '[A-Za-z0-9][A-Za-z0-9_-]{0,63}';
const KEY_PATTERN = new RegExp(`^${SEGMENT}/${SEGMENT}/${SEGMENT}$`);

export function isValidObjectKey(key: unknown): key is string {
  return typeof key === 'string' && KEY_PATTERN.test(key);
}

/** One key segment (e.g. a user id placed in a key) under the same rule. */
export function isValidKeySegment(segment: unknown): segment is string {
  return typeof segment === 'string' && new RegExp(`^${SEGMENT}$`).test(segment);
}

export class InvalidObjectKeyError extends Error {
  constructor() {
    // The key itself is not echoed: it came from a caller.
    super('object key must be <scope>/<owner>/<name> of letters, digits, _ and -');
    this.name = 'InvalidObjectKeyError';
  }
}

export function assertObjectKey(key: unknown): asserts key is string {
  if (!isValidObjectKey(key)) throw new InvalidObjectKeyError();
}
