/**
 * The path ids of the receipt routes: one schema for validation and the OpenAPI document.
 * A transaction's id is any id the merchant holds for it (chargeStore.findMerchantCharge in db/charges/chargeStore.ts); it
 * is also written into the Content-Disposition filename unquoted (the spec's exact header), so it
 * is limited to characters of an HTTP token that URLs carry as they are. Anything else → 400.
 * A withdrawal's id is the one schema of GET /sellers/saques/{id} (api/withdrawals/schema.ts).
 */
import { z } from 'zod';

export const TRANSACTION_RECEIPT_ID = /^[A-Za-z0-9._~+-]{1,128}$/;

export const transactionReceiptId = z
  .string()
  .regex(TRANSACTION_RECEIPT_ID, 'must be 1 to 128 letters, digits or . _ ~ + -')
  .meta({
    description:
      'Charge id, `externalRef`, `providerChargeId`, `pixTxid`, `endToEndId` or `providerTransactionId` (the same as `providerChargeId`) of one of your charges; newest match wins.',
    example: 'E12345678202501011200abcdefghijk',
  });

export const payoutItemReceiptId = z
  .uuid()
  .meta({ description: 'Payout item id (GET /v1/payouts/batches/{batchId}/items).' });
