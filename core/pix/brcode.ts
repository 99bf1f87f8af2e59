/**
 * Pix BR Code (EMV "copia e cola") and Pix identifiers. Pure: no I/O, only crypto randomness.
 *
 * The code is a *static* Pix with the amount (field 54) because the sandbox has no location
 * server for dynamic codes. Caveat: EMV/BACEN cap a static code's reference label (62/05) at 25
 * characters, while the provider contract's txid is the API-Pix `cob` txid (26 to 35 chars).
 * So 62/05 carries the first 25 characters of the txid (still ~148 random bits, unique in
 * practice) and the full txid goes in the free-text field 26/02 so a human can read it.
 */
import { createStaticPix, hasError } from 'pix-utils';
import { randomAlphanumeric } from './random';

export const TXID_MIN_LENGTH = 26;
export const TXID_MAX_LENGTH = 35;
/** EMV limit for field 62/05 (reference label) in a static BR Code. */
export const STATIC_REFERENCE_LABEL_MAX = 25;

const TXID_RE = /^[a-zA-Z0-9]{26,35}$/;
const E2E_RE = /^E\d{8}\d{12}[a-zA-Z0-9]{11}$/;
/** Field 26 (merchant account info) may hold at most 99 characters in total. */
const MAI_MAX = 99;
const PIX_GUI_ELEMENT_LENGTH = 4 + 'br.gov.bcb.pix'.length;

/** EMV field 59 (merchant name) limit. */
export const MERCHANT_NAME_MAX = 25;

export interface BrCodeInput {
  pixKey: string;
  merchantName: string; // normalised by brCodeMerchantName
  merchantCity: string; // max 15
  amountCents: number;
  txid: string;
}

export function isValidTxid(txid: string): boolean {
  return TXID_RE.test(txid);
}

export function isValidEndToEndId(e2e: string): boolean {
  return e2e.length === 32 && E2E_RE.test(e2e);
}

/** API-Pix style txid: 26 to 35 alphanumerics (default 32), crypto random. */
export function generateTxid(length = 32): string {
  if (!Number.isInteger(length) || length < TXID_MIN_LENGTH || length > TXID_MAX_LENGTH) {
    throw new RangeError(`txid length must be ${TXID_MIN_LENGTH}..${TXID_MAX_LENGTH}`);
  }
  return randomAlphanumeric(length);
}

/** "E" + ISPB(8) + yyyyMMddHHmm (UTC) + 11 alphanumerics = 32 chars (BACEN SPI EndToEndId). */
export function generateEndToEndId(ispb: string, date: Date): string {
  if (!/^\d{8}$/.test(ispb)) throw new RangeError('ISPB must be 8 digits');
  if (Number.isNaN(date.getTime())) throw new RangeError('invalid date');
  const stamp = date.toISOString().slice(0, 16).replace(/[-T:]/g, ''); // yyyyMMddHHmm
  return `E${ispb}${stamp}${randomAlphanumeric(11)}`;
}

/**
 * CRC16-CCITT (poly 0x1021, init 0xFFFF, no reflection, no final xor) over the UTF-8 bytes,
 * as 4 upper-case hex digits: the checksum the BR Code carries in field 63.
 * pix-utils does not export its own from the package root, hence this copy.
 */
export function crc16ccitt(str: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(str, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** True when the string ends in field 63 ("6304" + 4 hex) and that CRC matches the rest. */
export function hasValidCrc(brCode: string): boolean {
  const match = /^(.*6304)([0-9A-F]{4})$/.exec(brCode);
  return match !== null && crc16ccitt(match[1]) === match[2];
}

/**
 * Builds the copy-paste code. Throws on input pix-utils refuses (e.g. empty city) since
 * the caller (the sandbox) controls every field and a failure is a programming error.
 */
export function buildPixBrCode(input: BrCodeInput): string {
  if (!isValidTxid(input.txid)) throw new RangeError('txid must be 26..35 alphanumerics');
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0) {
    throw new RangeError('amountCents must be a positive integer');
  }
  const pix = createStaticPix({
    merchantName: brCodeMerchantName(input.merchantName) || 'PIX',
    merchantCity: asciiOnly(input.merchantCity).slice(0, 15),
    pixKey: input.pixKey,
    transactionAmount: input.amountCents / 100,
    txid: input.txid.slice(0, STATIC_REFERENCE_LABEL_MAX),
    infoAdicional: fitInfo(`TXID ${input.txid}`, input.pixKey),
  });
  if (hasError(pix)) throw new Error(`cannot build BR Code: ${pix.message}`);
  return pix.toBRCode();
}

/**
 * Field 59 as bank apps show it: no accents, printable ASCII, upper case, single spaces, at
 * most 25 characters (cut at the limit, then trimmed). Empty when nothing printable remains.
 */
export function brCodeMerchantName(name: string): string {
  return asciiOnly(name).replace(/\s+/g, ' ').trim().toUpperCase().slice(0, MERCHANT_NAME_MAX).trim();
}

/** Drop the info text rather than emit a field 26 longer than EMV allows. */
function fitInfo(info: string, pixKey: string): string | undefined {
  const room = MAI_MAX - PIX_GUI_ELEMENT_LENGTH - (4 + pixKey.length) - 4;
  return info.length <= room ? info : undefined;
}

/**
 * EMV lengths count characters but the CRC covers UTF-8 bytes; bank apps disagree on
 * non-ASCII text, so strip accents and anything outside printable ASCII.
 */
function asciiOnly(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '');
}
