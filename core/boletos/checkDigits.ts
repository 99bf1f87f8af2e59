/** The two check-digit algorithms of the bank boleto (FEBRABAN; BACEN Carta-Circular 2.926/2000). */

/**
 * Módulo 10 of each digitable-line field: weights 2, 1, 2, 1… from the rightmost digit, the
 * digits of each product summed (14 → 1 + 4), DV = (10 − sum mod 10) mod 10.
 */
export function mod10(digits: string): number {
  let sum = 0;
  for (let i = digits.length - 1, weight = 2; i >= 0; i--, weight = 3 - weight) {
    const product = Number(digits[i]) * weight;
    sum += product > 9 ? product - 9 : product; // same as adding its two digits
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * Módulo 11 general check digit of the barcode (over its 43 other digits): weights 2..9 from
 * the rightmost digit, cycling; DV = 11 − sum mod 11, and a result of 0, 10 or 11 becomes 1
 * (so the general DV is never 0).
 */
export function mod11Barcode(digits: string): number {
  let sum = 0;
  for (let i = digits.length - 1, weight = 2; i >= 0; i--, weight = weight === 9 ? 2 : weight + 1) {
    sum += Number(digits[i]) * weight;
  }
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}
