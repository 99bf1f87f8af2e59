/** What route handlers share: state, the (injectable) clock, logging and callback delivery. */
import type { Logger } from 'pino';
import type { AccountCertificates } from './accountCertificates';
import type { SandboxAccounts } from './accounts';
import type { CallbackDispatcher } from './callbacks';
import type { SandboxJournal } from './journal';
import type { ChargeRecord, SandboxState } from './state';

/** How a paid cob (a charge created through API Pix) is announced: sandbox/pixApi/notifications.ts. */
export interface CobNotifications {
  /** POSTs {"pix": [...]} to the webhook of the cob's chave, when one is registered. */
  cobPaid(rec: ChargeRecord): void;
}

export interface SandboxContext {
  state: SandboxState;
  /** The PSP's accounts: the default one (configuration) and those POST /sandbox/accounts made. */
  accounts: SandboxAccounts;
  /** Signs each new account's client certificate (accountCertificates.ts). */
  certificates: AccountCertificates;
  /** Every change to charges and transfers goes here too, so a restart keeps them. */
  journal: SandboxJournal;
  now: () => Date;
  logger: Logger;
  callbacks: CallbackDispatcher;
  cobNotifications: CobNotifications;
  /** Probability (0..1) that a payment gets a Pix infraction opened against it; 0 by default. */
  openInfractionRate: number;
  random: () => number;
}
