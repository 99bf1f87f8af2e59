/** Pure FEBRABAN boleto logic: due-date factor, check digits, barcode ↔ digitable line. No I/O. */
export { dueDateFactor, dueDateFromFactor, FACTOR_RESET_DATE } from './dueDateFactor';
export { mod10, mod11Barcode } from './checkDigits';
export {
  buildBarcode,
  barcodeToDigitableLine,
  digitableLineToBarcode,
  formatDigitableLine,
  expectedGeneralDv,
  MAX_BOLETO_AMOUNT_CENTS,
  type BarcodeInput,
} from './barcode';
export { parseBoletoCode, type ParsedBoletoCode, type BoletoCodeError, type BoletoCodeErrorField } from './parse';
export {
  SANDBOX_BANK_CODE,
  SANDBOX_AGENCY,
  SANDBOX_ACCOUNT,
  buildSandboxFreeField,
  parseSandboxFreeField,
  sandboxNossoNumero,
  type SandboxFreeField,
} from './freeField';
export { amountDueOn, type AmountDue, type LateChargeTerms } from './lateCharges';
export { addDays, daysBetween, isIsoDate, isoDateOf } from './dates';
