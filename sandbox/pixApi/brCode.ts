/**
 * The BR Code of a cob: a dynamic Pix code (Manual de Padrões para Iniciação do Pix). Field 26
 * (merchant account information, GUI br.gov.bcb.pix) carries the payload location in subfield 25
 * instead of a key in 01; field 62-05 (reference label) is "***", since the txid travels in the
 * payload; no amount (field 54), since the JWS payload is authoritative and a revision may change
 * it; 01 = "12" (point of initiation: a code meant for one payment). Built here, field by field,
 * and parsed in the tests by pix-utils, a parser we did not write.
 */
import { brCodeMerchantName, crc16ccitt } from '../../core/pix/brcode';

/** EMV TLV: two-digit id, two-digit length, value (ASCII only, so characters are bytes). */
function tlv(id: string, value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new RangeError(`field ${id} must be printable ASCII`);
  if (value.length > 99) throw new RangeError(`field ${id} is longer than 99 characters`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/**
 * `location` is a cob's payload location (field 26); `recLocation` a recurrence's (Pix Automático:
 * field 80, GUI br.gov.bcb.pix, subfield 25), alone for journey 2's QR, beside the cob's for
 * journey 3's composite QR.
 */
export function buildDynamicBrCode(input: {
  location?: string;
  recLocation?: string;
  merchantName: string;
  merchantCity: string;
}): string {
  const payload = [
    tlv('00', '01'),
    tlv('01', '12'),
    ...(input.location ? [tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('25', input.location))] : []),
    ...(input.recLocation ? [tlv('80', tlv('00', 'br.gov.bcb.pix') + tlv('25', input.recLocation))] : []),
    tlv('52', '0000'),
    tlv('53', '986'),
    tlv('58', 'BR'),
    tlv('59', brCodeMerchantName(input.merchantName) || 'PIX'),
    tlv('60', brCodeMerchantName(input.merchantCity).slice(0, 15) || 'BRASIL'),
    tlv('62', tlv('05', '***')),
  ].join('');
  const withCrcId = `${payload}6304`;
  return `${withCrcId}${crc16ccitt(withCrcId)}`;
}
