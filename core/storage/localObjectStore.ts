/**
 * An object store in a local directory (UPLOADS_DIR, default .data/uploads), for development,
 * tests and single-node installs. The API serves it (api/uploads/router.ts) with the same
 * contract as S3: a signed PUT URL, then a public GET. Each object is two files:
 * `<dir>/<scope>/<owner>/<name>` (the bytes) and `<name>.json` beside it ({contentType, size}).
 * Keys cannot contain dots (objectStore.ts), so the two never collide.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertObjectKey, type ObjectStore, type PresignedPut } from './objectStore';
import { uploadQuery, verifyUpload, type UploadCheck } from './uploadSignature';

export interface LocalObjectStoreOptions {
  dir: string;
  /** Base URL the API is reached at (PUBLIC_BASE_URL); upload and read URLs start with it. */
  publicBaseUrl: string;
  /** HMAC key of the upload URLs (UPLOAD_SIGNING_SECRET). */
  signingSecret: string;
  /** Clock in ms, replaceable in tests. */
  now?: () => number;
}

export interface StoredObjectMeta {
  contentType: string;
  size: number;
}

/** A write refused because the body passed the size the URL allows. */
export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`upload is larger than ${maxBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

/** A write to a key that already holds an object: keys are write-once (see `write`). */
export class ObjectExistsError extends Error {
  constructor() {
    super('an object already exists under this key');
    this.name = 'ObjectExistsError';
  }
}

/** The body stopped before its end (the client went away). */
export class UploadAbortedError extends Error {
  constructor() {
    super('upload ended before its body was complete');
    this.name = 'UploadAbortedError';
  }
}

export const UPLOADS_ROUTE = '/uploads';

export class LocalObjectStore implements ObjectStore {
  readonly dir: string;
  private readonly baseUrl: string;
  private readonly now: () => number;

  constructor(private readonly options: LocalObjectStoreOptions) {
    if (!options.signingSecret) throw new Error('LocalObjectStore needs a signing secret');
    this.dir = path.resolve(options.dir);
    this.baseUrl = options.publicBaseUrl.replace(/\/+$/, '');
    this.now = options.now ?? Date.now;
  }

  async presignPut(
    key: string,
    contentType: string,
    maxBytes: number,
    expiresInSeconds: number,
  ): Promise<PresignedPut> {
    assertObjectKey(key);
    const expires = Math.floor(this.now() / 1000) + expiresInSeconds;
    const query = uploadQuery({ key, expires, contentType, maxBytes }, this.options.signingSecret);
    return { url: `${this.publicUrl(key)}?${query}`, headers: { 'Content-Type': contentType } };
  }

  /** Checks a PUT's query string against `key` (see uploadSignature.ts). */
  verify(key: string, query: Record<string, unknown>): UploadCheck {
    return verifyUpload(key, query, this.options.signingSecret, this.now());
  }

  async head(key: string): Promise<{ size: number } | null> {
    const stat = await fsp.stat(this.file(key)).catch(ifMissing(null));
    return stat ? { size: stat.size } : null;
  }

  async readStart(key: string, bytes: number): Promise<Buffer | null> {
    const handle = await fsp.open(this.file(key), 'r').catch(ifMissing(null));
    if (!handle) return null;
    try {
      const buf = Buffer.alloc(bytes);
      const { bytesRead } = await handle.read(buf, 0, bytes, 0);
      return buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  publicUrl(key: string): string {
    assertObjectKey(key);
    return `${this.baseUrl}${UPLOADS_ROUTE}/${key}`;
  }

  async delete(key: string): Promise<void> {
    const file = this.file(key);
    await fsp.rm(file, { force: true });
    await fsp.rm(metaFile(file), { force: true });
  }

  /**
   * Streams `body` into the object, never holding more than a chunk in memory and never
   * writing more than `maxBytes`: past that it throws ObjectTooLargeError and leaves nothing
   * behind. The bytes go to a temporary file first and are linked into place, so a reader
   * never sees half an upload. Keys are write-once (ObjectExistsError): otherwise a URL still
   * valid after its avatar was confirmed could replace the checked image with anything.
   */
  async write(key: string, body: Readable, contentType: string, maxBytes: number): Promise<StoredObjectMeta> {
    const file = this.file(key);
    const tmpDir = path.join(this.dir, '.tmp');
    await fsp.mkdir(tmpDir, { recursive: true });
    await fsp.mkdir(path.dirname(file), { recursive: true });
    const tmp = path.join(tmpDir, crypto.randomUUID());
    let size = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        done(size > maxBytes ? new ObjectTooLargeError(maxBytes) : null, chunk);
      },
    });
    const out = pipeline(limit, fs.createWriteStream(tmp, { mode: 0o600 }));
    // `body` is piped by hand rather than put in the pipeline: a failed pipeline destroys its
    // source, and destroying an HTTP request destroys its socket, so the caller could not
    // answer 413. A body that stops short (client gone) fails the write instead.
    const abort = () => {
      if (!body.readableEnded) limit.destroy(new UploadAbortedError());
    };
    body.once('close', abort);
    body.once('error', abort);
    body.pipe(limit);
    try {
      await out;
      // link fails with EEXIST where rename would replace: the atomic claim of the key.
      await fsp.link(tmp, file).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'EEXIST' ? new ObjectExistsError() : err;
      });
      const meta: StoredObjectMeta = { contentType, size };
      await fsp.writeFile(metaFile(file), JSON.stringify(meta), { mode: 0o600 });
      return meta;
    } finally {
      await fsp.rm(tmp, { force: true });
      body.unpipe(limit);
      body.off('close', abort);
      body.off('error', abort);
    }
  }

  /** The object's metadata and bytes, or null when there is none. */
  async open(key: string): Promise<{ meta: StoredObjectMeta; stream: Readable } | null> {
    const file = this.file(key);
    const raw = await fsp.readFile(metaFile(file), 'utf8').catch(ifMissing(null));
    const handle = raw === null ? null : await fsp.open(file, 'r').catch(ifMissing(null));
    if (raw === null || !handle) return null;
    const stat = await handle.stat();
    const meta = JSON.parse(raw) as StoredObjectMeta;
    return { meta: { contentType: meta.contentType, size: stat.size }, stream: handle.createReadStream() };
  }

  /** The object's path, checked twice: by the key pattern, and by staying under `dir`. */
  private file(key: string): string {
    assertObjectKey(key);
    const file = path.resolve(this.dir, ...key.split('/'));
    if (!file.startsWith(this.dir + path.sep)) throw new Error('object key resolves outside the uploads directory');
    return file;
  }
}

function metaFile(file: string): string {
  return `${file}.json`;
}

function ifMissing<T>(value: T) {
  return (err: NodeJS.ErrnoException): T => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return value;
    throw err;
  };
}
