/**
 * The ids the gateway gives API Pix, derived from its own ids alone, so a retried call addresses
 * the same resource instead of creating a second one. Pure.
 *  - txid of a cob (`PUT /cob/{txid}`, 26 to 35 alphanumerics) from the charge id;
 *  - id of a devolução (`PUT /pix/{e2eid}/devolucao/{id}`, 1 to 35 alphanumerics) from the refund id;
 *  - idEnvio of a sent Pix (Efí's `PUT /v3/gn/pix/{idEnvio}`, 1 to 35 alphanumerics, Efí's
 *    idempotency key) from the transfer's business id (payout item, withdrawal, refund);
 *  - txid of a Pix Automático cycle charge (`PUT /cobr/{txid}`, 26 to 35 alphanumerics) from the
 *    cycle's id, and a recurrence's `vinculo.contrato` (at most 35 characters) from the
 *    subscription's id: `POST /rec` takes no id of ours, so the contract is how a retried create
 *    finds the recurrence the lost answer created (pixAutomaticoClient.ts).
 *
 * Both of our ids are UUIDs (PostgreSQL UUID columns, issued by crypto.randomUUID()), and a UUID
 * is 32 hex digits. The API id is those 32 digits in lower case:
 *  - inside both formats (32 is within 26..35 and 1..35);
 *  - collision-free by construction: two UUIDs that differ as values differ in some hex digit,
 *    so their ids differ (an injective mapping, no hashing and no birthday bound);
 *  - reversible, so a callback's or a statement's txid names our charge without a lookup table,
 *    and an id that is not of that shape is visibly not ours.
 * Anything but a UUID is refused: a provider id or a reference passed by mistake would otherwise
 * become a valid-looking id of some other resource.
 */
import { isValidTxid } from './brcode';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OUR_ID_RE = /^[0-9a-f]{32}$/;

/** The txid of the cob that collects this charge. */
export function txidFor(chargeId: string): string {
  const txid = hexOf(chargeId, 'txidFor: a charge id is a UUID');
  // Guards the reasoning above: 32 characters is inside 26..35.
  if (!isValidTxid(txid)) throw new RangeError('txidFor: derived txid is outside the API Pix format');
  return txid;
}

/** The charge id a txid was derived from (txidFor's inverse), or null when the txid is not one of ours. */
export function chargeIdOfTxid(txid: string): string | null {
  return uuidOf(txid);
}

/**
 * How the PSP names the charge of this id, for whoever addresses the sandbox PSP's control routes
 * (the payer's button, open an infraction): a charge id of ours is collected by the cob of its
 * txid; anything else (a provider id such as `sbx_ch_…`) is passed as it is.
 */
export function pspChargeRef(id: string): string {
  return UUID_RE.test(id) ? txidFor(id) : id;
}

/** The devolução id of this refund (one devolução per refund). */
export function devolucaoIdFor(refundId: string): string {
  return hexOf(refundId, 'devolucaoIdFor: a refund id is a UUID');
}

/** The refund id a devolução id was derived from, or null when it is not one of ours. */
export function refundIdOfDevolucaoId(id: string): string | null {
  return uuidOf(id);
}

function hexOf(uuid: string, refusal: string): string {
  if (!UUID_RE.test(uuid)) throw new RangeError(refusal);
  return uuid.replace(/-/g, '').toLowerCase();
}

function uuidOf(id: string): string | null {
  if (!OUR_ID_RE.test(id)) return null;
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}

/** The idEnvio of the Pix sent for this transfer (its business id: payout item, withdrawal or refund). */
export function idEnvioFor(transferReference: string): string {
  return hexOf(transferReference, 'idEnvioFor: a transfer reference is a UUID');
}

/** The transfer reference an idEnvio was derived from, or null when it is not one of ours. */
export function referenceOfIdEnvio(idEnvio: string): string | null {
  return uuidOf(idEnvio);
}

/** The txid of the cobr that charges this cycle of a subscription (cobs and cobrs share the txid format). */
export function cycleTxidFor(cycleId: string): string {
  return txidFor(cycleId);
}

/** The cycle id a cobr's txid was derived from, or null when the txid is not one of ours. */
export function cycleIdOfTxid(txid: string): string | null {
  return uuidOf(txid);
}

/** The `vinculo.contrato` of the recurrence that carries this subscription (one recurrence per subscription). */
export function recContractFor(subscriptionId: string): string {
  return hexOf(subscriptionId, 'recContractFor: a subscription id is a UUID');
}

/** The subscription id a recurrence's contrato was derived from, or null when it is not one of ours. */
export function subscriptionIdOfRecContract(contrato: string): string | null {
  return uuidOf(contrato);
}
