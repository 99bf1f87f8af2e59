/**
 * How a payment is given back, and where a boleto's refund may go. Pure.
 *
 * A payment that came by Pix (a Pix charge, or a hybrid boleto paid through its BR Code) has an
 * endToEndId and is returned by devolução to whoever paid it. A boleto paid by barcode has no Pix
 * payment to return: its refund is a Pix transfer, and only to a key of the boleto's payer (the
 * document the boleto was registered to), as the Pix directory (DICT) answers for the key.
 * Anything else would let whoever may refund send a merchant's money to any key.
 */
import { onlyDigits, shownDocumentMatches } from '../documents';
import type { PixKeyOwner, PixKeyType } from '../provider';

export function returnedByDevolucao(charge: { endToEndId: string | null }): boolean {
  return Boolean(charge.endToEndId);
}

/**
 * What can be told without the directory: a document named with the destination must be the
 * payer's, and a CPF or CNPJ key is its owner's document. True when nothing contradicts.
 */
export function mayBePayersKey(
  destination: { pixKey: string; pixKeyType: PixKeyType; document: string | null },
  payerDocument: string,
): boolean {
  const payer = onlyDigits(payerDocument);
  if (destination.document !== null && onlyDigits(destination.document) !== payer) return false;
  if (destination.pixKeyType === 'CPF' || destination.pixKeyType === 'CNPJ') return destination.pixKey === payer;
  return true;
}

/** The directory's answer says the key's owner is the payer: same document type, every digit shown equal. */
export function ownedByPayer(owner: PixKeyOwner, payerDocument: string): boolean {
  const payer = onlyDigits(payerDocument);
  const payerType = payer.length === 11 ? 'CPF' : payer.length === 14 ? 'CNPJ' : null;
  return owner.owner.documentType === payerType && shownDocumentMatches(owner.owner.document, payer);
}
