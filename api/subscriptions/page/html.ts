/**
 * The hosted subscription page's HTML, rendered on the server, in Portuguese (lang="pt-BR"): the
 * course, the amount per period, the terms the payer authorises (valor, periodicidade, primeiro
 * vencimento, política de retentativas, como cancelar) and, while AWAITING_AUTHORISATION on
 * journeys 2 and 3, the QR and its copy-and-paste text; after, the state in words. Everything
 * interpolated is escaped (the checkout page's format.ts); the one inline <style> carries the nonce.
 */
import type { SubscriptionInterval } from '../../../core/subscriptions/calendar';
import type { RetryPolicy } from '../../../core/subscriptions/retries';
import type { SubscriptionState } from '../../../core/subscriptions/states';
import type { SubscriptionRow } from '../../../core/subscriptions/view';
import type { SubscriptionPageExtras } from '../../../db/subscriptions';
import { escapeHtml as e, formatBrl, safeLink } from '../../checkouts/page/format';
import { brandHeader, pageShell } from '../../checkouts/page/html';

export const SUBSCRIBE_PAGE_PREFIX_PATH = '/subscribe';
export const ASSET_JS = `${SUBSCRIBE_PAGE_PREFIX_PATH}/assets/subscribe.js`;

export type SubscriptionPageView = SubscriptionRow & SubscriptionPageExtras;

/** "por mês", the period in the words of the amount line. */
const PER_PERIOD: Record<SubscriptionInterval, string> = {
  WEEKLY: 'por semana',
  MONTHLY: 'por mês',
  QUARTERLY: 'por trimestre',
  SEMIANNUAL: 'por semestre',
  ANNUAL: 'por ano',
};
const PERIODICIDADE: Record<SubscriptionInterval, string> = {
  WEEKLY: 'Semanal',
  MONTHLY: 'Mensal',
  QUARTERLY: 'Trimestral',
  SEMIANNUAL: 'Semestral',
  ANNUAL: 'Anual',
};
const RETRY_TEXT: Record<RetryPolicy, string> = {
  NAO_PERMITE: 'Sem retentativas: se um pagamento não for concluído na data, ele não é tentado de novo.',
  PERMITE_3R_7D:
    'Se um pagamento não for concluído na data, ele pode ser tentado de novo até 3 vezes nos 7 dias seguintes.',
};

/** The state after authorisation, in words: a title and a line. */
export const STATE_TEXT: Record<SubscriptionState, { title: string; text: string; tone: 'ok' | 'closed' | '' }> = {
  AWAITING_AUTHORISATION: { title: 'Autorize a assinatura', text: 'Aguardando sua autorização', tone: '' },
  AUTHORISED: {
    title: 'Assinatura autorizada',
    text: 'Pix Automático autorizado. O primeiro pagamento será feito na data do primeiro vencimento.',
    tone: 'ok',
  },
  ACTIVE: { title: 'Assinatura ativa', text: 'Assinatura ativa: o último pagamento foi recebido.', tone: 'ok' },
  PAST_DUE: {
    title: 'Pagamento pendente',
    text: 'O último pagamento não foi concluído e será tentado de novo. O acesso continua enquanto isso.',
    tone: '',
  },
  SUSPENDED: {
    title: 'Assinatura suspensa',
    text: 'Um pagamento não foi concluído. O acesso volta quando o próximo pagamento for recebido.',
    tone: 'closed',
  },
  CANCELLED: {
    title: 'Assinatura cancelada',
    text: 'Esta assinatura foi cancelada e não será mais cobrada.',
    tone: 'closed',
  },
  REFUSED: { title: 'Autorização recusada', text: 'A autorização do Pix Automático foi recusada.', tone: 'closed' },
  EXPIRED: {
    title: 'Autorização expirada',
    text: 'O prazo para autorizar esta assinatura terminou. Volte à loja para assinar de novo.',
    tone: 'closed',
  },
};

/** 2026-03-05 → 05/03/2026. */
export function formatDate(date: string): string {
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y}`;
}

function terms(view: SubscriptionPageView): string {
  return `<section class="card" aria-labelledby="terms-title">
<h2 id="terms-title">${e(view.courseTitle)}</h2>
<p class="total" id="amount">${formatBrl(view.amountCents)} ${PER_PERIOD[view.interval]}</p>
<dl class="terms">
<dt>Valor</dt><dd>${formatBrl(view.amountCents)} a cada cobrança</dd>
<dt>Periodicidade</dt><dd>${PERIODICIDADE[view.interval]}</dd>
<dt>Primeiro vencimento</dt><dd>${formatDate(view.firstDueDate)}</dd>
${view.lastDueDate ? `<dt>Último vencimento</dt><dd>${formatDate(view.lastDueDate)}</dd>` : ''}
<dt>Política de retentativas</dt><dd>${RETRY_TEXT[view.retryPolicy]}</dd>
<dt>Como cancelar</dt><dd>A qualquer momento, no app do seu banco, na área de Pix Automático: cancele a autorização desta assinatura. Nenhuma cobrança é feita depois do cancelamento.</dd>
</dl>
</section>`;
}

function backLink(view: SubscriptionPageView): string {
  const back = safeLink(view.returnUrl);
  return back ? `<p class="back"><a href="${e(back)}">Voltar à loja</a></p>` : '';
}

function awaitingBody(view: SubscriptionPageView): string {
  const base = `${SUBSCRIBE_PAGE_PREFIX_PATH}/${view.id}`;
  const how =
    view.journey === 'JOURNEY_1'
      ? `<section class="card" id="request" aria-labelledby="request-title">
<h2 id="request-title">Autorize no app do seu banco</h2>
<p>Enviamos um pedido de autorização de Pix Automático ao seu banco. Abra o app do banco, confira os dados acima e autorize.</p>
</section>`
      : view.qrCopyPaste
        ? `<section class="card" id="pix" aria-labelledby="pix-title">
<h2 id="pix-title">Pix Automático</h2>
<ol class="steps"><li>Abra o app do seu banco e escolha pagar com Pix.</li><li>Escaneie o QR code ou use o código copia e cola.</li><li>Confira os dados e autorize${view.journey === 'JOURNEY_3' ? ' (o primeiro pagamento é feito agora)' : ''}.</li></ol>
<img id="qr" class="qr" src="${base}/qr.png" width="240" height="240" alt="QR code do Pix Automático de ${formatBrl(view.amountCents)} ${PER_PERIOD[view.interval]} para ${e(view.merchantName)}">
<label for="pix-code">Código Pix copia e cola</label>
<textarea id="pix-code" class="code" readonly rows="4" spellcheck="false">${e(view.qrCopyPaste)}</textarea>
<button type="button" id="copy" hidden>Copiar código</button>
</section>`
        : `<p class="status">O QR code está sendo preparado. Atualize a página em instantes.</p>`;
  return `${brandHeader(view)}
<main id="subscription" data-status="${view.status}" data-status-url="${base}/status">
<h1 id="title">${STATE_TEXT.AWAITING_AUTHORISATION.title}</h1>
<p id="status" class="status" role="status" aria-live="polite">${STATE_TEXT.AWAITING_AUTHORISATION.text}</p>
${terms(view)}
${how}
${backLink(view)}
</main>`;
}

function stateBody(view: SubscriptionPageView): string {
  const t = STATE_TEXT[view.status];
  return `${brandHeader(view)}
<main id="subscription" data-status="${view.status}">
<h1 id="title">${t.title}</h1>
<p id="status" class="status${t.tone ? ` ${t.tone}` : ''}" role="status">${t.text}</p>
${terms(view)}
${backLink(view)}
</main>`;
}

export function renderSubscriptionPage(view: SubscriptionPageView, nonce: string): string {
  const title = `Assinatura – ${view.merchantName}`;
  if (view.status === 'AWAITING_AUTHORISATION') {
    // Without JavaScript the page still follows the authorisation: it reloads itself every 15 s.
    const head = `<script src="${ASSET_JS}" defer></script>\n<noscript><meta http-equiv="refresh" content="15"></noscript>`;
    return pageShell({ title, nonce, brandColor: view.brandColor, body: awaitingBody(view), head });
  }
  return pageShell({
    title,
    nonce,
    brandColor: view.brandColor,
    body: stateBody(view),
    head: `<script src="${ASSET_JS}" defer></script>`,
  });
}

export function renderNotFound(nonce: string): string {
  return pageShell({
    title: 'Assinatura não encontrada',
    nonce,
    brandColor: null,
    body: `<main id="subscription">
<h1>Assinatura não encontrada</h1>
<p>Este link de assinatura não existe ou está incorreto. Confira o endereço ou volte à loja onde assinou.</p>
</main>`,
  });
}
