/**
 * Outgoing e-mail, sent by the SendMail workflow (one per row, workflow id `mail-<id>`). The body
 * carries one-time codes: it is stored encrypted (secretBox, the credentials key) and wiped once
 * the mail is sent, so the table keeps who/what/when but no code. `last_error` holds our own
 * words, never the SMTP server's answer verbatim.
 */
import type { Migration } from '../migrator';

export const outgoingMails: Migration = {
  name: '0011_outgoing_mails',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE outgoing_mails (
        id UUID PRIMARY KEY,
        to_address TEXT NOT NULL,
        subject TEXT NOT NULL,
        body_ciphertext TEXT,
        status TEXT NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED','SENT','FAILED')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        sent_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX outgoing_mails_created ON outgoing_mails (created_at DESC);
    `);
  },
};
