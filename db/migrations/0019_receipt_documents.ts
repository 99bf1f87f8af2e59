/**
 * Rendered receipts (PDF comprovantes), kept so a receipt is rendered once: the key is a hash of
 * everything the PDF shows (its facts, the verify URL's base, the layout and the verification
 * key's fingerprint; api/receipts/receiptDocuments.ts). Facts that change (a later refund) make a
 * new key and a new row; rows are never updated. `digest` is the verification digest
 * (core/receipts/verificationCode.ts receiptDigest) printed in the PDF's code.
 */
import type { Migration } from '../migrator';

export const receiptDocuments: Migration = {
  name: '0019_receipt_documents',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE receipt_documents (
        cache_key TEXT PRIMARY KEY CHECK (cache_key ~ '^[0-9a-f]{64}$'),
        kind TEXT NOT NULL CHECK (kind IN ('CHARGE', 'WITHDRAWAL', 'PAYOUT_ITEM')),
        document_id UUID NOT NULL,
        digest TEXT NOT NULL,
        pdf BYTEA NOT NULL,
        byte_size INTEGER NOT NULL CHECK (byte_size > 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX receipt_documents_document ON receipt_documents (kind, document_id);
    `);
  },
};
