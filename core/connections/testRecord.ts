/**
 * The record of one "test the connection" (activities/provider/connectionCheck.ts makes it; the
 * psp_connections row keeps the last one; the CLI and the application API show it): our own words
 * only, never the PSP's texts nor anything secret.
 */
export interface ConnectionTestRecord {
  at: string;
  ok: boolean;
  token: 'TAKEN' | 'REFUSED' | 'UNREACHABLE';
  webhook: 'REGISTERED' | 'MISSING' | 'UNKNOWN';
  balance: 'READABLE' | 'UNREADABLE' | 'UNKNOWN';
  problems: string[];
}
