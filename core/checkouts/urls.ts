/** Where a checkout's hosted page lives (api/checkouts/page serves it; it also accepts `bill_<uuid>`). */
export function checkoutPageUrl(publicBaseUrl: string, checkoutId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/c/${checkoutId}`;
}

/** The P0 public id of a checkout: `bill_` + its UUID. */
export const BILL_PREFIX = 'bill_';
export const billId = (checkoutId: string): string => `${BILL_PREFIX}${checkoutId}`;

const BILL_ID = /^bill_([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

/** The UUID inside a `bill_<uuid>` id, lower-cased; null when the id is not of that form. */
export function parseBillId(value: string): string | null {
  const match = BILL_ID.exec(value);
  return match ? match[1].toLowerCase() : null;
}
