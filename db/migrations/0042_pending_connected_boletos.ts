/**
 * The sweep for lost boleto notices (activities/charges/boletoSweep.ts) asks every minute, per
 * active connection, whether it has a boleto still waiting for payment before it calls the PSP at
 * all: this partial index answers that from the few PENDING boletos, never from every charge the
 * connection ever took.
 */
import type { Migration } from '../migrator';

export const pendingConnectedBoletos: Migration = {
  name: '0042_pending_connected_boletos',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE INDEX charges_pending_connected_boletos ON charges (psp_connection_id)
        WHERE method = 'BOLETO' AND status = 'PENDING' AND psp_connection_id IS NOT NULL;
    `);
  },
};
