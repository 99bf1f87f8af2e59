/**
 * The record of one "test the connection" (activities/provider/connectionCheck.ts makes it; the
 * psp_connections row keeps the last one; the CLI and the application API show it): our own words
 * only, never the PSP's texts nor anything secret.
 */
export interface ConnectionTestRecord {
  at: string;
  ok: boolean;
  /**
   * CERTIFICATE_REFUSED: the client id and secret were right, but the certificate is not one of
   * their account's (another account's, say); REFUSED: the client id or secret was.
   */
  token: 'TAKEN' | 'REFUSED' | 'CERTIFICATE_REFUSED' | 'UNREACHABLE';
  webhook: 'REGISTERED' | 'MISSING' | 'UNKNOWN';
  balance: 'READABLE' | 'UNREADABLE' | 'UNKNOWN';
  problems: string[];
}
