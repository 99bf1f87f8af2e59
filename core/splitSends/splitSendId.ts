/**
 * A split recipient's share that its PSP cannot pay at settlement (its account is at another PSP)
 * is sent by Pix from the charge owner's own account after settlement (issue 37, item 3). Its
 * business id, the send's idempotency key (the transfer path's reference, Efí's idEnvio), is
 * derived from the charge and the recipient: a retried or duplicated start finds the same id, so
 * the PSP pays it once. A UUID (RFC 4122 layout, name-based with SHA-256 rather than v5's SHA-1),
 * as every other transfer reference is: the reconciliation and the transfer path take UUIDs.
 */
import crypto from 'node:crypto';

export function splitSendIdFor(chargeId: string, recipientMerchantId: string): string {
  const hex = crypto.createHash('sha256').update(`split-send:${chargeId}:${recipientMerchantId}`).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
