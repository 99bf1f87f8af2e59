/** The small HTML page GET /receipts/verify answers a browser with. Every value is escaped. */
import { formatBrl, formatDateTimeBrasilia, RECEIPT_TITLES } from '../../core/receipts/format';
import { formatDateBrasilia } from '../../core/receipts/certificate';
import type { ReceiptKind } from '../../core/receipts/facts';
import type { authenticCertificate, ReceiptVerification } from './schema';
import type { z } from 'zod';

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** No scripts, no external resources: inline styles only. */
export const VERIFY_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const STYLE = `body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}.ok{color:#0a6b2d}.bad{color:#a40e0e}dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{color:#666}dd{margin:0;word-break:break-all}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="pt-BR">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
${body}
</body>
</html>
`;
}

const party = (p: { name: string; document: string | null } | null): string =>
  p ? [p.name, p.document].filter(Boolean).join(' - ') : 'Não informado';

export function verifyPage(result: ReceiptVerification): string {
  if (!result.authentic) {
    return page(
      'Comprovante não autêntico',
      '<h1 class="bad">Comprovante não autêntico</h1>\n<p>Este código não corresponde a nenhum comprovante emitido por nós, ou os dados do comprovante foram alterados. Não o aceite como prova de pagamento.</p>',
    );
  }
  if (result.kind === 'CERTIFICATE' && 'courseTitle' in result) return certificatePage(result);
  if (!('amountCents' in result)) throw new Error('unreachable');
  const rows: [string, string][] = [
    ['Tipo', RECEIPT_TITLES[result.kind as ReceiptKind]],
    ['Valor', formatBrl(result.amountCents)],
    ['Data e hora', `${formatDateTimeBrasilia(result.occurredAt)} (horário de Brasília)`],
    ['ID da transação (E2E)', result.endToEndId ?? '-'],
    ['Pagador', party(result.payer)],
    ['Recebedor', party(result.receiver)],
    ...result.refunds.map((r): [string, string] => [
      'Devolução',
      `${formatBrl(r.amountCents)} em ${formatDateTimeBrasilia(r.at)}`,
    ]),
  ];
  const dl = rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('\n');
  return page(
    'Comprovante autêntico',
    `<h1 class="ok">Comprovante autêntico</h1>\n<p>Este comprovante foi emitido por nós e os dados abaixo conferem com os nossos registros.</p>\n<dl>\n${dl}\n</dl>`,
  );
}

/** A certificate: genuine and valid, or genuine but revoked (its enrolment's charge was refunded). */
function certificatePage(result: z.infer<typeof authenticCertificate>): string {
  const rows: [string, string][] = [
    ['Tipo', 'Certificado de conclusão'],
    ['Situação', result.valid ? 'Válido' : 'Revogado'],
    ['Aluno(a)', [result.student.name ?? 'Não informado', result.student.document].filter(Boolean).join(' - ')],
    ['Curso', result.courseTitle],
    ['Emitido por', result.merchantName],
    ['Data de emissão', formatDateBrasilia(result.issuedAt)],
    ['Certificado', result.certificateId],
    ...(result.revokedAt
      ? [['Revogado em', `${formatDateTimeBrasilia(result.revokedAt)} (horário de Brasília)`] as [string, string]]
      : []),
  ];
  const dl = rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('\n');
  if (!result.valid) {
    return page(
      'Certificado revogado',
      `<h1 class="bad">Certificado revogado</h1>\n<p>Este certificado foi emitido por nós, mas não é mais válido: a matrícula foi revogada.</p>\n<dl>\n${dl}\n</dl>`,
    );
  }
  return page(
    'Certificado válido',
    `<h1 class="ok">Certificado válido</h1>\n<p>Este certificado foi emitido por nós e os dados abaixo conferem com os nossos registros.</p>\n<dl>\n${dl}\n</dl>`,
  );
}
