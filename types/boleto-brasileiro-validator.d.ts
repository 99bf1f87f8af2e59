/** Types for boleto-brasileiro-validator (ships none); used by tests only, as an independent check. */
declare module 'boleto-brasileiro-validator' {
  /** 44-digit bank barcode: general DV (mod 11). */
  export function boletoBancarioCodigoBarras(barcode: string): boolean;
  /** 47-digit line: general DV, and the three field DVs (mod 10) when validateBlocks is true. */
  export function boletoBancarioLinhaDigitavel(line: string, validateBlocks?: boolean): boolean;
  export function boletoBancario(code: string, validateBlocks?: boolean): boolean;
}
