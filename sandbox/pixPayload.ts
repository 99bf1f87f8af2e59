/**
 * The Pix payment data the sandbox issues, for a charge or a hybrid boleto alike: a fresh txid,
 * the static BR Code on the sandbox's key (the merchant's name in field 59, what the payer's
 * bank app shows) and its QR code.
 */
import { brCodeMerchantName, buildPixBrCode, generateTxid } from '../core/pix/brcode';
import { qrCodePngBase64 } from '../core/pix/qrPng';
import { SANDBOX_MERCHANT } from './payer';

export async function issuePixPayload(
  merchantName: string | null | undefined,
  amountCents: number,
): Promise<{ txid: string; copyPaste: string; qrCodeBase64: string }> {
  const txid = generateTxid();
  const copyPaste = buildPixBrCode({
    pixKey: SANDBOX_MERCHANT.pixKey,
    merchantName: brCodeMerchantName(merchantName ?? '') || SANDBOX_MERCHANT.name,
    merchantCity: SANDBOX_MERCHANT.city,
    amountCents,
    txid,
  });
  return { txid, copyPaste, qrCodeBase64: await qrCodePngBase64(copyPaste) };
}
