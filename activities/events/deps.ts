/** What the webhook activities run with (apart from index.ts, which lists the steps that take it). */
import type { Sequelize } from 'sequelize';
import type { PrivateReceiver } from '../../core/net/destination';
import type { Lookup } from './sender';

export interface WebhookActivityDeps {
  sequelize: Sequelize;
  /** Decrypts webhook secrets (the same key that encrypts client secrets). */
  secretsKey?: Buffer;
  /** Local receivers are allowed in development and tests only. */
  allowPrivateDestinations?: boolean;
  /** WEBHOOK_PRIVATE_RECEIVERS: private `ip:port`s delivered to all the same, for the merchants each names (production too). */
  privateReceivers?: readonly PrivateReceiver[];
  /** The resolver deliveries connect through (tests inject one); the system's by default. */
  lookup?: Lookup;
  /** WEBHOOK_FIRST_ATTEMPT_LEASE_SECONDS: how long a committing worker holds a first attempt (firstAttempts.ts). */
  firstAttemptLeaseSeconds?: number;
}
