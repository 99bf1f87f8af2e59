/**
 * The hosted checkout page's HTML, rendered on the server (readable without JavaScript;
 * checkout.js only adds the copy button and live status). Portuguese, lang="pt-BR". Everything
 * interpolated is escaped; links are http(s) only; the one inline <style> (brand colours) carries
 * the response's CSP nonce.
 */
import { brandColors, escapeHtml as e, formatBrl, formatDateTime, safeLink, safeLogo } from './format';
import type { CheckoutPageView } from './store';

export const ASSET_CSS = '/c/assets/checkout.css';
export const ASSET_JS = '/c/assets/checkout.js';

/** A hosted page's document (the checkout's and the subscription's): its head, the brand colours, the body. */
export interface Shell {
  title: string;
  nonce: string;
  brandColor: string | null;
  head?: string;
  body: string;
}

export function pageShell(s: Shell): string {
  const { brand, onBrand } = brandColors(s.brandColor);
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${e(s.title)}</title>
<link rel="stylesheet" href="${ASSET_CSS}">
<style nonce="${s.nonce}">:root{--brand:${brand};--on-brand:${onBrand}}</style>
${s.head ?? ''}
</head>
<body>
${s.body}
</body>
</html>
`;
}

/** The merchant's brand bar at the top of a hosted page. */
export function brandHeader(view: { logoUrl: string | null; merchantName: string }): string {
  const logo = safeLogo(view.logoUrl);
  return `<header class="brand">
${logo ? `<img class="logo" src="${e(logo)}" alt="Logotipo de ${e(view.merchantName)}" width="48" height="48">` : ''}
<p class="merchant">${e(view.merchantName)}</p>
</header>`;
}

function summary(view: CheckoutPageView): string {
  const rows = view.items
    .map(
      (i) =>
        `<tr><td>${e(i.name)}</td><td class="num">${i.quantity}</td><td class="num">${formatBrl(i.unitAmountCents)}</td></tr>`,
    )
    .join('\n');
  return `<section class="card" aria-labelledby="order-title">
<h2 id="order-title">Resumo do pedido</h2>
<table class="items">
<thead><tr><th scope="col">Item</th><th scope="col" class="num">Qtd.</th><th scope="col" class="num">Valor unitário</th></tr></thead>
<tbody>
${rows}
</tbody>
<tfoot><tr><th scope="row" colspan="2">Total</th><td class="num total" id="total">${formatBrl(view.amountCents)}</td></tr></tfoot>
</table>
</section>`;
}

function backLink(view: CheckoutPageView): string {
  const back = safeLink(view.returnUrl);
  return back ? `<p class="back"><a href="${e(back)}">Voltar à loja</a></p>` : '';
}

export interface PageOptions {
  nonce: string;
  /** Development and tests: the "Simular pagamento" form. */
  simulate: boolean;
}

function pendingBody(view: CheckoutPageView, opts: PageOptions): string {
  const base = `/c/${view.id}`;
  const code = view.copyPaste ?? '';
  const simulate = opts.simulate
    ? `<form class="card dev" method="post" action="${base}/simulate-payment">
<p>Ambiente de desenvolvimento: nenhum dinheiro de verdade.</p>
<button type="submit" class="secondary">Simular pagamento</button>
</form>`
    : '';
  return `${brandHeader(view)}
<main id="checkout" data-status-url="${base}/status" data-events-url="${base}/events">
<h1 id="title">Pague com Pix</h1>
<p id="status" class="status" role="status" aria-live="polite">Aguardando pagamento</p>
${summary(view)}
<section class="card" id="pix" aria-labelledby="pix-title">
<h2 id="pix-title">Pix</h2>
<ol class="steps"><li>Abra o app do seu banco e escolha pagar com Pix.</li><li>Escaneie o QR code ou use o código copia e cola.</li></ol>
<img id="qr" class="qr" src="${base}/qr.png" width="240" height="240" alt="QR code Pix para pagar ${formatBrl(view.amountCents)} a ${e(view.merchantName)}">
<label for="pix-code">Código Pix copia e cola</label>
<textarea id="pix-code" class="code" readonly rows="4" spellcheck="false">${e(code)}</textarea>
<button type="button" id="copy" hidden>Copiar código</button>
<p class="expires">Válido até ${formatDateTime(view.expiresAt)} (horário de Brasília).</p>
</section>
${simulate}
${backLink(view)}
</main>`;
}

function paidBody(view: CheckoutPageView): string {
  const next = safeLink(view.completionUrl);
  return `${brandHeader(view)}
<main id="checkout">
<h1 id="title">Pagamento confirmado</h1>
<p id="status" class="status ok" role="status" aria-live="polite">Pagamento confirmado. Obrigado!</p>
${next ? `<p><a class="button" href="${e(next)}">Continuar</a></p>` : ''}
${summary(view)}
${backLink(view)}
</main>`;
}

const CLOSED_TEXT: Record<'EXPIRED' | 'CANCELLED' | 'REFUNDED', { title: string; text: string }> = {
  EXPIRED: {
    title: 'Este checkout expirou',
    text: 'O prazo para pagar este Pix terminou e o código não vale mais. Volte à loja para fazer um novo pedido.',
  },
  CANCELLED: {
    title: 'Este checkout foi cancelado',
    text: 'Este pedido foi cancelado e não pode mais ser pago. Volte à loja para fazer um novo pedido.',
  },
  REFUNDED: { title: 'Pagamento estornado', text: 'O valor deste pedido foi devolvido.' },
};

function closedBody(view: CheckoutPageView, status: 'EXPIRED' | 'CANCELLED' | 'REFUNDED'): string {
  const t = CLOSED_TEXT[status];
  return `${brandHeader(view)}
<main id="checkout">
<h1 id="title">${t.title}</h1>
<p id="status" class="status closed" role="status">${t.text}</p>
${summary(view)}
${backLink(view)}
</main>`;
}

export function renderCheckoutPage(view: CheckoutPageView, opts: PageOptions): string {
  const title = `Pagamento – ${view.merchantName}`;
  if (view.status === 'PENDING') {
    // Without JavaScript the page still follows the payment: it reloads itself every 15 s.
    const head = `<script src="${ASSET_JS}" defer></script>\n<noscript><meta http-equiv="refresh" content="15"></noscript>`;
    return pageShell({ title, nonce: opts.nonce, brandColor: view.brandColor, head, body: pendingBody(view, opts) });
  }
  if (view.status === 'PAID') {
    // Without JavaScript: on to the merchant's completion page after a moment.
    const next = safeLink(view.completionUrl);
    const head = next ? `<meta http-equiv="refresh" content="3;url=${e(next)}">` : '';
    return pageShell({ title, nonce: opts.nonce, brandColor: view.brandColor, head, body: paidBody(view) });
  }
  return pageShell({ title, nonce: opts.nonce, brandColor: view.brandColor, body: closedBody(view, view.status) });
}

export function renderNotFound(nonce: string): string {
  return pageShell({
    title: 'Checkout não encontrado',
    nonce,
    brandColor: null,
    body: `<main id="checkout">
<h1>Checkout não encontrado</h1>
<p>Este link de pagamento não existe ou está incorreto. Confira o endereço ou volte à loja onde fez o pedido.</p>
</main>`,
  });
}
