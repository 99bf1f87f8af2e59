/**
 * `gateway connection-keys rewrap`: after a master key rotation (CONNECTION_MASTER_KEYS gains a
 * key, CONNECTION_MASTER_KEY_ID names it), moves every connection's envelopes under the current
 * key, one connection at a time: only each data key is unwrapped and wrapped again, the secrets
 * never change, so no PSP connection is interrupted and a run can be stopped and repeated. The old
 * key may be dropped from the configuration once a run reports nothing left under it.
 */
import type { Sequelize } from 'sequelize';
import { EnvelopeError, rewrapEnvelope, type MasterKeyring } from '../core/crypto/envelope';
import { pspConnectionStore } from '../db/connections';

export interface RewrapReport {
  currentKeyId: string;
  rewrapped: number;
  /** Changed by someone else meanwhile (a rotation, a revocation): the next run takes them. */
  skipped: number;
  /** Sealed under a key this keyring does not hold: named by connection id and key id only. */
  unopenable: { connectionId: string; reason: string }[];
}

export async function rewrapConnections(deps: { sequelize: Sequelize; keyring: MasterKeyring }): Promise<RewrapReport> {
  const { sequelize, keyring } = deps;
  const report: RewrapReport = { currentKeyId: keyring.currentKeyId, rewrapped: 0, skipped: 0, unopenable: [] };
  for (const read of await pspConnectionStore.connectionsNotUnder(sequelize, keyring.currentKeyId)) {
    let next;
    try {
      next = {
        secret_envelope: rewrapEnvelope(read.secret_envelope, keyring).envelope,
        webhook_path_secret_envelope: rewrapEnvelope(read.webhook_path_secret_envelope, keyring).envelope,
        pending_secret_envelope: read.pending_secret_envelope
          ? rewrapEnvelope(read.pending_secret_envelope, keyring).envelope
          : null,
      };
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      report.unopenable.push({ connectionId: read.id, reason: err.message });
      continue;
    }
    if (await pspConnectionStore.replaceEnvelopes(sequelize, read, next, keyring.currentKeyId)) report.rewrapped++;
    else report.skipped++;
  }
  return report;
}

export function describeRewrap(r: RewrapReport): string {
  const lines = [
    `master key ${r.currentKeyId}: ${r.rewrapped} connection(s) re-wrapped, ${r.skipped} changed meanwhile (run again)`,
    ...r.unopenable.map((u) => `  cannot open connection ${u.connectionId}: ${u.reason}`),
  ];
  return `${lines.join('\n')}\n`;
}
