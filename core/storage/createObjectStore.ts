/** The configured object store: S3 when S3_ENDPOINT is set, else the local directory served by the API. */
import type { ObjectStore } from './objectStore';
import { LocalObjectStore } from './localObjectStore';
import type { S3ObjectStoreOptions } from './s3ObjectStore';

export interface StorageConfig {
  uploadsDir: string;
  uploadSigningSecret: string;
  s3: S3ObjectStoreOptions | null;
}

export function createObjectStore(storage: StorageConfig, publicBaseUrl: string): ObjectStore {
  if (storage.s3) {
    // Loaded only when S3 is configured: the AWS SDK adds ~7 MiB to every API process that
    // loads it (measured), and most deployments here use the local store.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { S3ObjectStore } = require('./s3ObjectStore') as typeof import('./s3ObjectStore');
    return new S3ObjectStore(storage.s3);
  }
  return new LocalObjectStore({ dir: storage.uploadsDir, publicBaseUrl, signingSecret: storage.uploadSigningSecret });
}
