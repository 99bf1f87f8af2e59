/** How a receipt prints amounts, instants and titles (pt-BR, Brasília time). Pure. */
import { formatBrl } from '../boletos/pdf/format';
import type { ReceiptKind } from './facts';

export { formatBrl };

export const RECEIPT_TITLES: Record<ReceiptKind, string> = {
  CHARGE: 'Comprovante de Pix',
  WITHDRAWAL: 'Comprovante de saque',
  PAYOUT_ITEM: 'Comprovante de transferência',
};

/**
 * "2026-03-01T13:05:09Z" → "01/03/2026 às 10:05:09" in America/Sao_Paulo. Intl and the zone
 * database rather than a fixed −03:00: older instants fall under the former daylight-saving rules.
 */
export function formatDateTimeBrasilia(iso: string): string {
  const instant = new Date(iso);
  if (Number.isNaN(instant.getTime())) throw new RangeError('not a valid instant');
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'America/Sao_Paulo',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('day')}/${get('month')}/${get('year')} às ${get('hour')}:${get('minute')}:${get('second')}`;
}
