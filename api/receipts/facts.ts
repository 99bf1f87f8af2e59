/**
 * The facts of a receipt, from our records: a PAID charge, a COMPLETED withdrawal, a PAID payout
 * item. Anything else (unknown id, not settled yet, failed) has no receipt: null. The verify route
 * reloads facts this way to recompute the digest; the download routes build the PDF from them.
 *
 * Parties as the seller views present them (db/charges/sellerChargeView.ts, withdrawalView.ts):
 * a charge's payer is the provider's snapshot of who paid, its receiver the merchant at our
 * payment institution; a withdrawal goes from the merchant's payment account (its snapshot) to the
 * beneficiary snapshot taken at request time; a payout item from the merchant to the recipient
 * named in the batch.
 */
import { Charge, Merchant, PayoutBatch, PayoutItem, Refund, Withdrawal } from '../../db/models';
import { PLATFORM_INSTITUTION } from '../../db/charges/sellerChargeView';
import { PAYMENT_ACCOUNT_BRANCH } from '../../core/withdrawals/rules';
import type { Party, ReceiptFacts, ReceiptKind } from '../../core/receipts/facts';

export type LoadReceiptFacts = (kind: ReceiptKind, documentId: string) => Promise<ReceiptFacts | null>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const digits = (v: string | null): string | null => (v ? v.replace(/\D/g, '') || null : null);

/** The merchant as the holder of its payment account at the gateway. */
function merchantParty(merchant: Merchant): Party {
  return {
    name: merchant.name,
    document: digits(merchant.document),
    institution: PLATFORM_INSTITUTION,
    ispb: null,
    agency: PAYMENT_ACCOUNT_BRANCH,
    account: null,
    pixKey: null,
  };
}

/** The provider's snapshot of the paying account (ProviderPayer), read defensively: it is stored JSON. */
function payerParty(snapshot: Record<string, unknown> | null): Party | null {
  const name = str(snapshot?.name);
  if (!snapshot || !name) return null;
  return {
    name,
    document: digits(str(snapshot.document)),
    institution: str(snapshot.institution),
    ispb: str(snapshot.ispb),
    agency: str(snapshot.agency),
    account: str(snapshot.account),
    pixKey: null,
  };
}

/** Facts of a charge row; null unless it is PAID. Reads the merchant and settled refunds. */
export async function chargeReceiptFacts(charge: Charge): Promise<ReceiptFacts | null> {
  if (charge.status !== 'PAID' || !charge.paidAt) return null;
  const merchant = await Merchant.findByPk(charge.merchantId);
  if (!merchant) return null;
  const refunds = await Refund.findAll({
    where: { chargeId: charge.id, status: 'SUCCEEDED' },
    order: [
      ['settledAt', 'ASC'],
      ['createdAt', 'ASC'],
    ],
  });
  return {
    kind: 'CHARGE',
    documentId: charge.id,
    // A boleto may be paid for another amount than asked (late fees, under/over payment).
    amountCents: charge.boletoPaidAmountCents ?? charge.amountCents,
    // The merchant's fee is not the payer's business: a payment comprovante shows what was paid.
    feeCents: null,
    occurredAt: charge.paidAt.toISOString(),
    endToEndId: charge.endToEndId,
    txid: charge.pixTxid,
    description: charge.description,
    payer: payerParty(charge.payerSnapshot),
    receiver: merchantParty(merchant),
    refunds: refunds.map((r) => ({ amountCents: r.amountCents, at: (r.settledAt ?? r.updatedAt).toISOString() })),
  };
}

/** Facts of a withdrawal row; null unless COMPLETED. */
export async function withdrawalReceiptFacts(w: Withdrawal): Promise<ReceiptFacts | null> {
  if (w.status !== 'COMPLETED' || !w.processedAt) return null;
  const merchant = await Merchant.findByPk(w.merchantId);
  if (!merchant) return null;
  const source = w.sourceAccountSnapshot;
  const payer: Party = source
    ? {
        name: source.holderName ?? merchant.name,
        document: digits(source.holderDocument ?? merchant.document),
        institution: source.institution,
        ispb: null,
        agency: source.branch,
        account: source.account,
        pixKey: null,
      }
    : merchantParty(merchant);
  const b = w.beneficiarySnapshot;
  const receiver: Party | null = b
    ? {
        name: b.name,
        document: digits(b.document),
        institution: b.account?.institution ?? null,
        ispb: null,
        agency: b.account?.branch ?? null,
        account: b.account?.account ?? null,
        pixKey: b.pixKey,
      }
    : null;
  return {
    kind: 'WITHDRAWAL',
    documentId: w.id,
    amountCents: w.amountCents,
    feeCents: w.feeCents,
    occurredAt: w.processedAt.toISOString(),
    endToEndId: w.providerEndToEndId,
    txid: null,
    description: w.description,
    payer,
    receiver,
    refunds: [],
  };
}

/** Facts of a payout item row; null unless PAID. */
export async function payoutItemReceiptFacts(item: PayoutItem): Promise<ReceiptFacts | null> {
  if (item.status !== 'PAID' || !item.settledAt) return null;
  const merchant = await Merchant.findByPk(item.merchantId);
  if (!merchant) return null;
  const batch = await PayoutBatch.findByPk(item.batchId, { attributes: ['id', 'description'] });
  return {
    kind: 'PAYOUT_ITEM',
    documentId: item.id,
    amountCents: item.amountCents,
    feeCents: item.feeCents,
    occurredAt: item.settledAt.toISOString(),
    endToEndId: item.endToEndId,
    txid: null,
    description: batch?.description ?? item.referenceId ?? null,
    payer: merchantParty(merchant),
    receiver: {
      name: item.recipientName,
      document: digits(item.recipientDocument),
      institution: null,
      ispb: null,
      agency: null,
      account: null,
      pixKey: item.pixKey,
    },
    refunds: [],
  };
}

/** The loader the verify route takes: by kind and our id (never by another merchant's reference). */
export const loadReceiptFacts: LoadReceiptFacts = async (kind, documentId) => {
  if (!UUID.test(documentId)) return null;
  switch (kind) {
    case 'CHARGE': {
      const charge = await Charge.findByPk(documentId);
      return charge ? chargeReceiptFacts(charge) : null;
    }
    case 'WITHDRAWAL': {
      const w = await Withdrawal.findByPk(documentId);
      return w ? withdrawalReceiptFacts(w) : null;
    }
    case 'PAYOUT_ITEM': {
      const item = await PayoutItem.findByPk(documentId);
      return item ? payoutItemReceiptFacts(item) : null;
    }
    default:
      return null;
  }
};
