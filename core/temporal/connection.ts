/**
 * How the API, the worker and the operator CLI reach the Temporal frontend: its address, and TLS
 * when TEMPORAL_TLS_* say so (read and proven usable by config.ts): the client certificate the
 * frontend's mutual TLS asks for, the CA that signed the frontend's certificate (trusted instead of
 * the public ones), and the name that certificate carries when it is not the address's host. The
 * same options suit the client's Connection and the worker's NativeConnection.
 */
import type { TLSConfig } from '@temporalio/client';
import type { ClientTls } from '../net/clientTls';

export interface TemporalConnectionSettings {
  /** TEMPORAL_ADDRESS: host:port of the frontend. */
  address: string;
  /** TEMPORAL_TLS_CERT + TEMPORAL_TLS_KEY (the client certificate) and TEMPORAL_TLS_CA; null: neither. */
  tls: ClientTls | null;
  /** TEMPORAL_TLS_SERVER_NAME: the name the frontend's certificate is checked against; null: the address's host. */
  serverName: string | null;
}

/** `{ address, tls }` for Connection.connect / NativeConnection.connect; no `tls`: plain TCP. */
export function temporalConnectionOptions(settings: TemporalConnectionSettings): { address: string; tls?: TLSConfig } {
  const { address, tls: clientTls, serverName } = settings;
  if (!clientTls && !serverName) return { address };
  const tls: TLSConfig = {};
  if (serverName) tls.serverNameOverride = serverName;
  if (clientTls?.ca) tls.serverRootCACertificate = clientTls.ca;
  if (clientTls?.identity?.kind === 'pem')
    tls.clientCertPair = { crt: clientTls.identity.cert, key: clientTls.identity.key };
  return { address, tls };
}
