/**
 * The Pix received on our charges, as the statement's payments, from API Pix's own list
 * (GET /pix over the range, every page): the PSP's record of what arrived, which reconciliation
 * compares with the ledger. Only Pix whose txid is one of ours (a cob of a gateway charge) are
 * taken; the PSP lists every Pix received on the account.
 */
import { chargeIdOfTxid } from '../../core/pix/apiPixIds';
import type { ReceivedPix, StatementPayment } from '../../core/provider';
import type { PixApiClient } from './pixApi';
import { receivedPixOf } from '../../core/pix/receivedPix';

export type PixListClient = Pick<PixApiClient, 'listPix'>;

/** Every Pix received in [from, to] (ISO instants), as the PSP lists it (GET /pix, every page). */
export async function receivedPix(client: PixListClient, range: { from: string; to: string }): Promise<ReceivedPix[]> {
  return (await client.listPix({ inicio: range.from, fim: range.to })).map(receivedPixOf);
}

/** Payments on our charges received in [from, to) (ISO instants), by the time the PSP received them. */
export async function receivedPayments(
  client: PixListClient,
  range: { from: string; to: string },
): Promise<StatementPayment[]> {
  // The standard's range is closed at both ends; the statement's is half-open.
  const toMs = Date.parse(range.to);
  const payments: StatementPayment[] = [];
  for (const pix of await receivedPix(client, range)) {
    const chargeId = pix.txid ? chargeIdOfTxid(pix.txid) : null;
    if (!pix.txid || !chargeId || Date.parse(pix.paidAt) >= toMs) continue;
    payments.push({
      providerChargeId: pix.txid,
      reference: chargeId,
      amountCents: pix.amountCents,
      endToEndId: pix.endToEndId,
      paidAt: pix.paidAt,
    });
  }
  return payments;
}

/**
 * One list of payments from both sources: API Pix's for cobs, and the provider's own for charges
 * it issued before the switch. A payment both list (one account, two APIs) counts once, as API
 * Pix reports it, and so does a cob's payment the provider's own statement lists by its own id.
 */
export function mergedPayments(fromApiPix: StatementPayment[], fromOwn: StatementPayment[]): StatementPayment[] {
  const known = new Set(fromApiPix.map((p) => p.endToEndId));
  return [...fromApiPix, ...fromOwn.filter((p) => !known.has(p.endToEndId) && chargeIdOfTxid(p.reference) === null)];
}
