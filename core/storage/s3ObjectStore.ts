/**
 * An S3-compatible bucket (AWS S3, MinIO, R2…) addressed path-style (`<endpoint>/<bucket>/<key>`),
 * which every S3-compatible server supports. Presigned PUTs sign the Content-Type header, so an
 * upload of another type is refused by the store. S3 cannot cap the size of a presigned PUT
 * (only POST policies can), so the size is checked after the upload (`head`) by the caller.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertObjectKey, type ObjectStore, type PresignedPut } from './objectStore';

export interface S3ObjectStoreOptions {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where objects are read publicly (a CDN, or the bucket's own URL); default `<endpoint>/<bucket>`. */
  publicBaseUrl?: string;
}

export class S3ObjectStore implements ObjectStore {
  private readonly client: S3Client;
  private readonly publicBase: string;

  constructor(private readonly options: S3ObjectStoreOptions) {
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: true,
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    });
    this.publicBase = (options.publicBaseUrl ?? `${options.endpoint.replace(/\/+$/, '')}/${options.bucket}`).replace(
      /\/+$/,
      '',
    );
  }

  async presignPut(
    key: string,
    contentType: string,
    _maxBytes: number,
    expiresInSeconds: number,
  ): Promise<PresignedPut> {
    assertObjectKey(key);
    const command = new PutObjectCommand({ Bucket: this.options.bucket, Key: key, ContentType: contentType });
    const url = await getSignedUrl(this.client, command, {
      expiresIn: expiresInSeconds,
      signableHeaders: new Set(['content-type']),
    });
    return { url, headers: { 'Content-Type': contentType } };
  }

  async head(key: string): Promise<{ size: number } | null> {
    assertObjectKey(key);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return { size: out.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async readStart(key: string, bytes: number): Promise<Buffer | null> {
    assertObjectKey(key);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.options.bucket, Key: key, Range: `bytes=0-${bytes - 1}` }),
      );
      if (!out.Body) return Buffer.alloc(0);
      return Buffer.from(await out.Body.transformToByteArray()).subarray(0, bytes);
    } catch (err) {
      if (isNotFound(err)) return null;
      // An empty object has no byte 0: S3 answers 416 to any range.
      if (statusOf(err) === 416) return Buffer.alloc(0);
      throw err;
    }
  }

  publicUrl(key: string): string {
    assertObjectKey(key);
    return `${this.publicBase}/${key}`;
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'NotFound' || name === 'NoSuchKey' || statusOf(err) === 404;
}
