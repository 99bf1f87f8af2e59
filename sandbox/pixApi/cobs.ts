/**
 * Immediate charges (cob) of API Pix. A cob is a sandbox charge (charges.ts) with its API Pix
 * fields (state.ts CobRecord): one record, so paying it through the control route, infractions,
 * /v1/statements and devoluções all see the same charge. The charge's reference is its txid.
 *
 * The rules the BCB document sets for PUT /cob/{txid} and PATCH, as this PSP applies them:
 *  - PUT of a new txid creates the cob (revisao 0) with its payload location;
 *  - PUT of a txid that exists with the same content answers the cob unchanged, whatever its
 *    status: a retried create (the gateway derives the txid from its charge id) is the same cob;
 *  - PUT with other content revises an ATIVA cob (revisao + 1, as a PATCH would) and is refused
 *    (400 CobOperacaoInvalida) for a cob that is no longer ATIVA;
 *  - PATCH with status REMOVIDA_PELO_USUARIO_RECEBEDOR removes an ATIVA cob; again on a removed
 *    one it changes nothing and answers it (a retried removal); a CONCLUIDA cob cannot be removed.
 * The status is the record's, not the charge's expiry (the document says so of CobrancaStatus):
 * an ATIVA cob past calendario.expiracao still reads ATIVA, and the payer can no longer pay it.
 */
import { randomBytes } from 'node:crypto';
import { randomAlphanumeric } from '../../core/pix/random';
import { qrCodePng } from '../../core/pix/qrPng';
import { findChargeByTxid } from '../charges';
import type { SandboxAccount } from '../accounts';
import type { SandboxContext } from '../context';
import { fingerprint } from '../idempotency';
import { SANDBOX_MERCHANT } from '../payer';
import type { ChargeRecord, CobContent, CobDebtor, CobRecord } from '../state';
import { buildDynamicBrCode } from './brCode';
import { PixProblem, type Violacao } from './problem';
import type { CobCreateBody, CobReviseBody } from './schemas';
import { valorToCents } from './valor';

export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

/** calendario.expiracao when the request leaves it out (the document's default). */
export const DEFAULT_EXPIRACAO_SECONDS = 86_400;

export type CobCharge = ChargeRecord & { cob: CobRecord };

export interface CobRules {
  /** The account the request acts for (its token's): a cob may name only its keys. */
  account: SandboxAccount;
}

export function currentContent(rec: CobCharge): CobContent {
  return rec.cob.revisions[rec.cob.revisions.length - 1];
}

export function cobStatus(rec: CobCharge): CobStatus {
  switch (rec.charge.status) {
    case 'PAID':
      return 'CONCLUIDA';
    case 'CANCELLED':
      return 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
    // Only the /v1 close route stores EXPIRED: the PSP, not the user, took the cob down.
    case 'EXPIRED':
      return 'REMOVIDA_PELO_PSP';
    default:
      return 'ATIVA';
  }
}

export function findCob(ctx: SandboxContext, txid: string): CobCharge | null {
  const rec = findChargeByTxid(ctx, txid);
  return rec?.cob ? (rec as CobCharge) : null;
}

/** The account a cob belongs to: the owner of its chave (every revision names a key of the same account). */
export function cobAccount(ctx: SandboxContext, rec: CobCharge): SandboxAccount {
  return ctx.accounts.ownerOf(currentContent(rec).chave);
}

/** The account's cob with this txid; another account's cob is not found, as a PSP answers. */
export function findAccountCob(ctx: SandboxContext, account: SandboxAccount, txid: string): CobCharge | null {
  const rec = findCob(ctx, txid);
  return rec && cobAccount(ctx, rec).id === account.id ? rec : null;
}

export function findCobByLocationToken(ctx: SandboxContext, token: string): CobCharge | null {
  for (const rec of ctx.state.charges.values()) if (rec.cob?.loc.token === token) return rec as CobCharge;
  return null;
}

/** Every cob, or the account's only. */
export function listCobs(ctx: SandboxContext, account?: SandboxAccount): CobCharge[] {
  return [...ctx.state.charges.values()].filter(
    (rec): rec is CobCharge =>
      rec.cob !== undefined && (!account || cobAccount(ctx, rec as CobCharge).id === account.id),
  );
}

/** PUT /cob/{txid} (and POST /cob with a txid of the PSP's). `host` is where the payload location is served. */
export function putCob(
  ctx: SandboxContext,
  rules: CobRules,
  txid: string,
  body: CobCreateBody,
  host: string,
): { rec: CobCharge; created: boolean } {
  const content = checkedContent(ctx, rules, body, {
    expiracao: body.calendario.expiracao ?? DEFAULT_EXPIRACAO_SECONDS,
    devedor: debtor(body.devedor),
    amountCents: valorToCents(body.valor.original),
    modalidadeAlteracao: body.valor.modalidadeAlteracao ?? 0,
    chave: body.chave,
    solicitacaoPagador: body.solicitacaoPagador ?? null,
    infoAdicionais: body.infoAdicionais?.length ? body.infoAdicionais : null,
  });
  const existing = findChargeByTxid(ctx, txid);
  if (!existing) return { rec: createCob(ctx, txid, content, host), created: true };
  // Txids are one namespace in the sandbox (the control routes pay a cob by its txid).
  if (!existing.cob || cobAccount(ctx, existing as CobCharge).id !== rules.account.id)
    throw invalid('O txid já está em uso.', {
      propriedade: 'txid',
      razao: 'O txid já identifica outra cobrança deste recebedor.',
    });
  const rec = existing as CobCharge;
  if (sameContent(currentContent(rec), content)) return { rec, created: false };
  if (rec.charge.status !== 'ACTIVE') {
    throw invalid('A cobrança já existe, não está ATIVA, e a presente requisição busca alterá-la.', {
      propriedade: 'cob.status',
      razao: `A cobrança está ${cobStatus(rec)}.`,
    });
  }
  revise(ctx, rec, content);
  return { rec, created: false };
}

/** PATCH /cob/{txid}: a revision, or the removal of an ATIVA cob. */
export function patchCob(ctx: SandboxContext, rules: CobRules, txid: string, body: CobReviseBody): CobCharge {
  const rec = findAccountCob(ctx, rules.account, txid);
  if (!rec) throw new PixProblem('CobNaoEncontrado', `Nenhuma cobrança com o txid ${txid}.`);
  const { status, ...changes } = body;
  if (status) {
    if (Object.values(changes).some((v) => v !== undefined)) {
      throw invalid('A cobrança não pode ser removida ao mesmo tempo em que é alterada.', {
        propriedade: 'cob.status',
        razao: 'status REMOVIDA_PELO_USUARIO_RECEBEDOR vem sozinho na requisição.',
      });
    }
    if (rec.charge.status === 'CANCELLED') return rec;
    if (rec.charge.status !== 'ACTIVE') {
      throw invalid('A cobrança não está ATIVA, e a presente requisição busca alterá-la.', {
        propriedade: 'cob.status',
        razao: `A cobrança está ${cobStatus(rec)} e não pode ser removida.`,
      });
    }
    rec.charge.status = 'CANCELLED';
    rec.cob.revisions.push(currentContent(rec));
    ctx.journal.charge(rec);
    ctx.logger.info({ chargeId: rec.charge.id, txid }, 'cob removed by the receiving user');
    return rec;
  }
  const current = currentContent(rec);
  const content = checkedContent(ctx, rules, changes, {
    expiracao: changes.calendario?.expiracao ?? current.expiracao,
    devedor: changes.devedor ? debtor(changes.devedor) : current.devedor,
    amountCents: changes.valor?.original === undefined ? current.amountCents : valorToCents(changes.valor.original),
    modalidadeAlteracao: changes.valor?.modalidadeAlteracao ?? current.modalidadeAlteracao,
    chave: changes.chave ?? current.chave,
    solicitacaoPagador: changes.solicitacaoPagador ?? current.solicitacaoPagador,
    infoAdicionais: changes.infoAdicionais
      ? changes.infoAdicionais.length
        ? changes.infoAdicionais
        : null
      : current.infoAdicionais,
  });
  if (sameContent(current, content)) return rec;
  if (rec.charge.status !== 'ACTIVE') {
    throw invalid('A cobrança não está ATIVA, e a presente requisição busca alterá-la.', {
      propriedade: 'cob.status',
      razao: `A cobrança está ${cobStatus(rec)}.`,
    });
  }
  revise(ctx, rec, content);
  return rec;
}

/** The semantic rules of PUT and PATCH that a schema cannot state. */
function checkedContent(
  ctx: SandboxContext,
  rules: CobRules,
  body: { loc?: unknown; valor?: { retirada?: unknown } },
  content: CobContent,
): CobContent {
  if (body.valor?.retirada !== undefined) {
    // A product outside the receiving user's contract: the document's general AcessoNegado.
    throw new PixProblem('AcessoNegado', 'Este PSP não oferece Pix Saque nem Pix Troco (valor.retirada).');
  }
  const violacoes: Violacao[] = [];
  if (body.loc !== undefined) {
    violacoes.push({
      propriedade: 'cob.loc.id',
      razao:
        'O location referenciado por loc.id inexiste: este PSP cria a location junto com a cobrança (não há POST /loc).',
    });
  }
  if (!ctx.accounts.owns(rules.account, content.chave)) {
    violacoes.push({
      propriedade: 'cob.chave',
      razao: 'O campo cob.chave corresponde a uma conta que não pertence a este usuário recebedor.',
      valor: content.chave.slice(0, 77),
    });
  }
  if (violacoes.length > 0)
    throw new PixProblem(
      'CobOperacaoInvalida',
      'A requisição que busca alterar ou criar uma cobrança para pagamento imediato está semanticamente errada.',
      violacoes,
    );
  return content;
}

function createCob(ctx: SandboxContext, txid: string, content: CobContent, host: string): CobCharge {
  const now = ctx.now();
  const token = randomBytes(16).toString('hex');
  const location = `${host}/qr/v2/${token}`;
  const copyPaste = buildDynamicBrCode({
    location,
    merchantName: ctx.accounts.ownerOf(content.chave).name,
    merchantCity: SANDBOX_MERCHANT.city,
  });
  const rec: CobCharge = {
    charge: {
      id: `sbx_ch_${randomAlphanumeric(24)}`,
      reference: txid,
      txid,
      status: 'ACTIVE',
      amountCents: content.amountCents,
      copyPaste,
      // Synchronous (a few ms), so nothing awaits between the txid check and the store.
      qrCodeBase64: qrCodePng(copyPaste).toString('base64'),
      expiresAt: new Date(now.getTime() + content.expiracao * 1000).toISOString(),
      createdAt: now.toISOString(),
      paidAt: null,
      endToEndId: null,
      payer: null,
    },
    callbackUrl: null,
    description: content.solicitacaoPagador,
    paidEvent: null,
    cob: { revisions: [content], loc: { id: nextLocationId(ctx), location, token, criacao: now.toISOString() } },
  };
  ctx.state.charges.set(rec.charge.id, rec);
  ctx.journal.charge(rec);
  ctx.logger.info({ chargeId: rec.charge.id, txid }, 'cob created');
  return rec;
}

/** The charge follows the cob's current revision: amount, expiry, description. */
function revise(ctx: SandboxContext, rec: CobCharge, content: CobContent): void {
  rec.cob.revisions.push(content);
  rec.charge.amountCents = content.amountCents;
  rec.charge.expiresAt = new Date(Date.parse(rec.charge.createdAt) + content.expiracao * 1000).toISOString();
  rec.description = content.solicitacaoPagador;
  ctx.journal.charge(rec);
  ctx.logger.info(
    { chargeId: rec.charge.id, txid: rec.charge.txid, revisao: rec.cob.revisions.length - 1 },
    'cob revised',
  );
}

function nextLocationId(ctx: SandboxContext): number {
  let max = 0;
  for (const rec of ctx.state.charges.values()) if (rec.cob && rec.cob.loc.id > max) max = rec.cob.loc.id;
  return max + 1;
}

/** Only the documented fields, in a fixed shape (extra properties a client sent are not kept). */
function debtor(devedor: { cpf?: string; cnpj?: string; nome: string } | undefined): CobDebtor | null {
  if (!devedor) return null;
  return devedor.cpf !== undefined
    ? { cpf: devedor.cpf, nome: devedor.nome }
    : { cnpj: devedor.cnpj as string, nome: devedor.nome };
}

function sameContent(a: CobContent, b: CobContent): boolean {
  return fingerprint(a) === fingerprint(b);
}

function invalid(detail: string, violacao: Violacao): PixProblem {
  return new PixProblem('CobOperacaoInvalida', detail, [violacao]);
}
