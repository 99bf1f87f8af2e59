/** The configured object store: S3 when S3_ENDPOINT is set, else the local directory served by the API. */
import type { ObjectStore } from './objectStore';
import { LocalObjectStore } from './localObjectStore';
import { S3ObjectStore, type S3ObjectStoreOptions } from './s3ObjectStore';

export interface StorageConfig {
  uploadsDir: string;
  uploadSigningSecret: string;
  s3: S3ObjectStoreOptions | null;
}

export function createObjectStore(storage: StorageConfig, publicBaseUrl: string): ObjectStore {
  if (storage.s3) return new S3ObjectStore(storage.s3);
  return new LocalObjectStore({ dir: storage.uploadsDir, publicBaseUrl, signingSecret: storage.uploadSigningSecret });
}
