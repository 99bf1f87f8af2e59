/**
 * Receipts (comprovantes) of one merchant's transactions: find the row among the merchant's own
 * (another merchant's or an unknown id is 404 NOT_FOUND), load its facts (api/receipts/facts.ts:
 * null unless settled → 409 RECEIPT_UNAVAILABLE), answer the PDF, rendered once
 * (receiptDocuments.ts) off the event loop (its render pool).
 */
import { chargeStore, type Charge } from '../../../db/charges';
import { payoutStore } from '../../../db/payouts';
import { withdrawalStore } from '../../../db/withdrawals';
import type { ReceiptFacts } from '../../../core/receipts/facts';
import { ApiError, errors } from '../../errors/apiError';
import { chargeReceiptFacts, payoutItemReceiptFacts, withdrawalReceiptFacts } from '../facts';
import type { ReceiptDocuments } from '../receiptDocuments';

export const receiptErrors = {
  unavailable: (what: string, status: string, needed: string) =>
    new ApiError(409, 'RECEIPT_UNAVAILABLE', `the ${what} is ${status}; a receipt exists once it is ${needed}`, {
      status,
    }),
};

export class ReceiptService {
  constructor(
    private readonly documents: ReceiptDocuments,
    /** config.platformInstitutionName: the merchant's side of every receipt. */
    private readonly platformInstitution: string,
  ) {}

  /** A charge of the merchant by any of its ids; 404 when it has none such, 409 unless PAID. */
  async transaction(merchantId: string, lookup: string): Promise<Buffer> {
    const charge = await chargeStore.findMerchantCharge(merchantId, lookup);
    if (!charge) throw errors.notFound('transaction');
    return this.charge(charge);
  }

  /** A charge whose access was already checked (the application API's member check). */
  async charge(charge: Charge): Promise<Buffer> {
    return this.render(await chargeReceiptFacts(charge, this.platformInstitution), () =>
      receiptErrors.unavailable('transaction', charge.status, 'PAID'),
    );
  }

  /** The same look-up as GET /sellers/saques/{id}: the two routes find the same withdrawals. */
  async withdrawal(merchantId: string, id: string): Promise<Buffer> {
    const row = await withdrawalStore.findMerchantWithdrawal(merchantId, id);
    if (!row) throw errors.notFound('withdrawal');
    return this.render(await withdrawalReceiptFacts(row, this.platformInstitution), () =>
      receiptErrors.unavailable('withdrawal', row.status, 'COMPLETED'),
    );
  }

  async payoutItem(merchantId: string, id: string): Promise<Buffer> {
    const row = await payoutStore.findMerchantItem(merchantId, id);
    if (!row) throw errors.notFound('payout item');
    return this.render(await payoutItemReceiptFacts(row, this.platformInstitution), () =>
      receiptErrors.unavailable('payout item', row.status, 'PAID'),
    );
  }

  private async render(facts: ReceiptFacts | null, unavailable: () => ApiError): Promise<Buffer> {
    if (!facts) throw unavailable();
    return this.documents.pdf(facts);
  }
}
