/** Pure helpers of the hosted checkout page: money in pt-BR, HTML escaping, brand colours, safe links. */

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** 123456 → "R$ 1.234,56" (Intl puts a no-break space after R$; a plain space reads the same and matches what people type). */
export function formatBrl(cents: number): string {
  return BRL.format(cents / 100).replace(/\u00a0/g, ' ');
}

const DATE_TIME = new Intl.DateTimeFormat('pt-BR', {
  dateStyle: 'short',
  timeStyle: 'short',
  timeZone: 'America/Sao_Paulo',
});

/** When the Pix code stops being payable, in Brasília time (the buyer's clock). */
export function formatDateTime(date: Date): string {
  return DATE_TIME.format(date);
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** WCAG 2.x relative luminance of '#rrggbb'. */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

export const DEFAULT_BRAND_COLOR = '#1a56db';
const DARK_TEXT = '#000000';
const LIGHT_TEXT = '#ffffff';

/**
 * The brand colour (a stored '#rrggbb', else our default) and the text colour drawn on it: white
 * or black, whichever contrasts more. One of the two always reaches 4.58:1 (WCAG AA for
 * normal text), whatever the merchant picked.
 */
export function brandColors(stored: string | null): { brand: string; onBrand: string } {
  const brand = stored && /^#[0-9a-fA-F]{6}$/.test(stored) ? stored.toLowerCase() : DEFAULT_BRAND_COLOR;
  const onBrand = contrastRatio(brand, LIGHT_TEXT) >= contrastRatio(brand, DARK_TEXT) ? LIGHT_TEXT : DARK_TEXT;
  return { brand, onBrand };
}

/** A link we may put in the page: http(s) only (never javascript: or data:), else null. */
export function safeLink(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.toString() : null;
  } catch {
    return null;
  }
}

/** A logo we may load: https only (the page's CSP allows https: images and our own). */
export function safeLogo(url: string | null | undefined): string | null {
  const link = safeLink(url);
  return link && link.startsWith('https:') ? link : null;
}
