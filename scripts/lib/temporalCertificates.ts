/**
 * The local PKI of the production Temporal engine, whose frontend requires mutual TLS
 * (docker/temporal-server.yaml): a CA, the server's certificate (frontend, internode and the
 * server's own system worker: serverAuth and clientAuth) and one client certificate for the
 * Temporal clients (the API, the worker, the operator CLI, the Web UI server, the `temporal` CLI).
 * Made once into .data/temporal-tls/ (git-ignored) by `npm start` with TEMPORAL_ENGINE=server or
 * `npm run temporal-certs` (docker-compose mounts the folder), and reused; the whole set is made
 * again when a file is missing or unreadable, the set does not hang together, or a certificate
 * expires within 30 days. The CA's private key is never written: nothing can be signed with it
 * later. For local use only: production brings its own PKI (docs/operations.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TLSConfig } from '@temporalio/client';
import * as x509 from '../../sandbox/x509';
import {
  createCertificateAuthority,
  describeCertificate,
  ExtendedKeyUsage,
  issueCertificate,
  type GeneralNames,
} from './certificates';
import { projectRoot } from '../../cli/lib/projectRoot';

export const TEMPORAL_TLS_DIR = path.join(projectRoot, '.data', 'temporal-tls');

/** Loopback for `npm start`, the tests and the bench; `temporal`, docker-compose's service name. */
export const TEMPORAL_SERVER_NAMES: GeneralNames = [
  { type: 'dns', value: 'localhost' },
  { type: 'ip', value: '127.0.0.1' },
  { type: 'dns', value: 'temporal' },
];

/**
 * The name local clients check the server's certificate against: the scripts' servers listen on
 * 127.0.0.1, and an IP address is no TLS server name (Node warns, RFC 6066).
 */
export const LOCAL_SERVER_NAME = 'localhost';

const VALIDITY_DAYS = 730;
const RENEW_WITHIN_MS = 30 * 86_400_000;

export interface TemporalTlsFiles {
  dir: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
}

/** Where the set lives in `dir` (the names docker-compose.yml mounts). */
export function temporalTlsFiles(dir: string = TEMPORAL_TLS_DIR): TemporalTlsFiles {
  return {
    dir,
    caFile: path.join(dir, 'ca.crt'),
    serverCertFile: path.join(dir, 'server.crt'),
    serverKeyFile: path.join(dir, 'server.key'),
    clientCertFile: path.join(dir, 'client.crt'),
    clientKeyFile: path.join(dir, 'client.key'),
  };
}

/** The set in `dir`, made now unless a usable one is there; `created` says which. */
export async function ensureTemporalCertificates(
  dir: string = TEMPORAL_TLS_DIR,
): Promise<{ files: TemporalTlsFiles; created: boolean }> {
  const files = temporalTlsFiles(dir);
  if (await usable(files)) return { files, created: false };
  const ca = await createCertificateAuthority('CN=pix-gateway local Temporal CA, O=pix-gateway', VALIDITY_DAYS);
  const server = await issueCertificate(ca, {
    subject: 'CN=temporal, O=pix-gateway',
    usages: [ExtendedKeyUsage.serverAuth, ExtendedKeyUsage.clientAuth],
    names: TEMPORAL_SERVER_NAMES,
    days: VALIDITY_DAYS,
  });
  const client = await issueCertificate(ca, {
    subject: 'CN=pix-gateway Temporal client, O=pix-gateway',
    usages: [ExtendedKeyUsage.clientAuth],
    days: VALIDITY_DAYS,
  });
  // Keys readable by their owner only (docker-compose's containers read them as uid 1000:
  // docs/operations.md), certificates by anyone.
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  const write = (file: string, text: string, mode: number) => {
    const partial = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(partial, text, { mode });
    fs.renameSync(partial, file);
  };
  write(files.serverKeyFile, server.key, 0o600);
  write(files.clientKeyFile, client.key, 0o600);
  write(files.serverCertFile, server.cert, 0o644);
  write(files.clientCertFile, client.cert, 0o644);
  write(files.caFile, ca.pem, 0o644);
  return { files, created: true };
}

/** Every file there, both certificates signed by the CA, none expiring within 30 days, the server's names complete. */
async function usable(files: TemporalTlsFiles): Promise<boolean> {
  try {
    const read = (file: string) => fs.readFileSync(file, 'utf8');
    const ca = new x509.X509Certificate(read(files.caFile));
    const soon = new Date(Date.now() + RENEW_WITHIN_MS);
    if (ca.notAfter < soon) return false;
    for (const [certFile, keyFile] of [
      [files.serverCertFile, files.serverKeyFile],
      [files.clientCertFile, files.clientKeyFile],
    ]) {
      const pem = read(certFile);
      if (!read(keyFile).includes('PRIVATE KEY')) return false;
      const cert = new x509.X509Certificate(pem);
      if (cert.notAfter < soon || !(await cert.verify({ publicKey: ca.publicKey, signatureOnly: true }))) return false;
    }
    const names = describeCertificate(read(files.serverCertFile)).names;
    return TEMPORAL_SERVER_NAMES.every((n) => names.includes(n.value));
  } catch {
    return false;
  }
}

/**
 * The variables a client of a local server (on loopback) reads: config.ts for the API, the worker
 * and the operator CLI; the `temporal` CLI and the Web UI server read the same names.
 */
export function temporalClientEnv(files: TemporalTlsFiles): Record<string, string> {
  return {
    TEMPORAL_TLS_CA: files.caFile,
    TEMPORAL_TLS_CERT: files.clientCertFile,
    TEMPORAL_TLS_KEY: files.clientKeyFile,
    TEMPORAL_TLS_SERVER_NAME: LOCAL_SERVER_NAME,
  };
}

/** The SDK's `tls` option with the client certificate, for the scripts' and tests' own connections to a local server. */
export function temporalClientTls(files: TemporalTlsFiles): TLSConfig {
  return {
    serverNameOverride: LOCAL_SERVER_NAME,
    serverRootCACertificate: fs.readFileSync(files.caFile),
    clientCertPair: { crt: fs.readFileSync(files.clientCertFile), key: fs.readFileSync(files.clientKeyFile) },
  };
}
