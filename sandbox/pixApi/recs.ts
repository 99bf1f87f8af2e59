/**
 * Pix Automático on the receiver's side (API Pix 2.9.0, tags Rec, SolicRec, CobR, PayloadLocationRec,
 * WebhookRec, WebhookCobR): the recurrences (rec), their payload locations (locrec), journey 1's
 * requests to the payer (solicrec) and each cycle's charge (cobr) with its attempts (tentativas).
 * Every record belongs to the account of the token that made it, as cobs do. The payer's side (its
 * PSP approving, paying, rejecting) is played by the test controls (pixAutomaticoControls.ts).
 * State lives in memory only (SandboxState.pixAutomatico, not journaled): a restart forgets it.
 * Dates (dataInicial, dataDeVencimento, retries) are calendar dates in Brasília, as the gateway's
 * (brasiliaDate) and the BCB's: `today` is Brasília's date, also from 21:00 there (00:00 UTC).
 */
import { randomAlphanumeric } from '../../core/pix/random';
import { generateEndToEndId } from '../../core/pix/brcode';
import { brasiliaDate } from '../../core/subscriptions/issueWindow';
import type { SandboxAccount } from '../accounts';
import type { SandboxContext } from '../context';
import { SANDBOX_ISPB, SANDBOX_MERCHANT } from '../payer';
import { buildDynamicBrCode } from './brCode';
import { PixProblem } from './problem';
import { centsToValor, valorToCents } from './valor';

export type RecStatus = 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
export type SolicRecStatus = 'CRIADA' | 'ENVIADA' | 'RECEBIDA' | 'REJEITADA' | 'ACEITA' | 'EXPIRADA' | 'CANCELADA';
export type CobRStatus = 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
export type TentativaStatus = 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';
export type Periodicidade = 'SEMANAL' | 'MENSAL' | 'TRIMESTRAL' | 'SEMESTRAL' | 'ANUAL';
export type PoliticaRetentativa = 'NAO_PERMITE' | 'PERMITE_3R_7D';
export type Jornada = 'JORNADA_1' | 'JORNADA_2' | 'JORNADA_3' | 'AGUARDANDO_DEFINICAO';

interface Change<S> {
  status: S;
  data: string;
}
type Devedor = { cpf: string; nome: string } | { cnpj: string; nome: string };

export interface RecRecord {
  idRec: string;
  accountId: string;
  vinculo: { objeto?: string; contrato: string; devedor: Devedor };
  calendario: { dataInicial: string; dataFinal?: string; periodicidade: Periodicidade };
  valor: { valorRec?: string; valorMinimoRecebedor?: string };
  politicaRetentativa: PoliticaRetentativa;
  convenio?: string;
  locId: number | null;
  status: RecStatus;
  atualizacao: Change<RecStatus>[];
  encerramento?:
    | { rejeicao: { codigo: 'AP13' | 'AP14'; descricao: string } }
    | { cancelamento: { solicitante: string; codigo: string; descricao: string } };
  ativacao: { tipoJornada: Jornada; dadosJornada?: { txid: string } };
}

export interface LocRecRecord {
  id: number;
  accountId: string;
  token: string;
  location: string;
  criacao: string;
  idRec: string | null;
}

export interface SolicRecRecord {
  idSolicRec: string;
  idRec: string;
  accountId: string;
  dataExpiracaoSolicitacao: string;
  destinatario: { conta: string; ispbParticipante: string; agencia?: string; cpf?: string; cnpj?: string };
  status: SolicRecStatus;
  atualizacao: Change<SolicRecStatus>[];
}

export interface TentativaRecord {
  dataLiquidacao: string;
  tipo: 'AGND' | 'NTAG' | 'RIFL';
  status: TentativaStatus;
  endToEndId: string;
  atualizacao: Change<TentativaStatus>[];
  rejeicao?: { codigo: string; descricao: string };
}

export interface CobRRecord {
  txid: string;
  idRec: string;
  accountId: string;
  criacao: string;
  dataDeVencimento: string;
  amountCents: number;
  ajusteDiaUtil: boolean;
  infoAdicional?: string;
  recebedor?: { conta: string; tipoConta: string; agencia?: string };
  devedor?: Record<string, unknown>;
  status: CobRStatus;
  atualizacao: Change<CobRStatus>[];
  encerramento?:
    | { rejeicao: { codigo: string; descricao: string } }
    | { cancelamento: { solicitante: string; codigo: string; descricao: string } };
  tentativas: TentativaRecord[];
  /** The paid attempt's settlement, as a received Pix (receivedPayments.ts, balances.ts). */
  paid: { endToEndId: string; paidAt: string } | null;
}

export interface WebhookRecRecord {
  webhookUrl: string;
  criacao: string;
}

export interface PixAutomaticoState {
  recs: Map<string, RecRecord>;
  locrecs: Map<number, LocRecRecord>;
  solicrecs: Map<string, SolicRecRecord>;
  cobrs: Map<string, CobRRecord>;
  /** By account id: one webhook per account for each kind (PUT /webhookrec, PUT /webhookcobr). */
  webhookRec: Map<string, WebhookRecRecord>;
  webhookCobR: Map<string, WebhookRecRecord>;
}

export function createPixAutomaticoState(): PixAutomaticoState {
  return {
    recs: new Map(),
    locrecs: new Map(),
    solicrecs: new Map(),
    cobrs: new Map(),
    webhookRec: new Map(),
    webhookCobR: new Map(),
  };
}

/** Rejection codes that end the whole cobr (the rules'); any other rejects one attempt. */
export const FINAL_REJECTION_CODES = ['AC05', 'AM09', 'DENC', 'DS27', 'DTED', 'MIDI', 'MSUC', 'NITX', 'RC09'] as const;
export const REJECTION_CODES = [
  'AB10',
  'AC05',
  'AC06',
  'AM02',
  'AM09',
  'DENC',
  'DS27',
  'DTED',
  'DTNT',
  'FBRD',
  'IRNT',
  'MIDI',
  'MSUC',
  'NIEC',
  'NIPA',
  'NITX',
  'QUNT',
  'RC09',
  'UDEI',
] as const;

/** Retries after the due date under PERMITE_3R_7D: at most 3, within 7 calendar days. */
export const MAX_RETRIES = 3;
export const RETRY_WINDOW_DAYS = 7;

const pa = (ctx: SandboxContext) => ctx.state.pixAutomatico;
const isoDate = (d: Date) => d.toISOString().slice(0, 10);
const compactDate = (d: Date) => isoDate(d).replace(/-/g, '');

export function today(ctx: SandboxContext): string {
  return brasiliaDate(ctx.now().getTime());
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** RAxxxxxxxxyyyyMMddkkkkkkkkkkk: R, R or N (retries allowed or not), ISPB, date, sequence (29). */
function newIdRec(ctx: SandboxContext, politica: PoliticaRetentativa): string {
  return `R${politica === 'PERMITE_3R_7D' ? 'R' : 'N'}${SANDBOX_ISPB}${compactDate(ctx.now())}${randomAlphanumeric(11)}`;
}

/** SCxxxxxxxxyyyyMMddkkkkkkkkkkk (29). */
function newIdSolicRec(ctx: SandboxContext): string {
  return `SC${SANDBOX_ISPB}${compactDate(ctx.now())}${randomAlphanumeric(11)}`;
}

function change<S>(ctx: SandboxContext, list: Change<S>[], status: S): void {
  list.push({ status, data: ctx.now().toISOString() });
}

// ---------------------------------------------------------------------------------------- locrec

export function createLocRec(ctx: SandboxContext, account: SandboxAccount, host: string): LocRecRecord {
  const id = pa(ctx).locrecs.size + 1;
  const token = randomAlphanumeric(32);
  const loc: LocRecRecord = {
    id,
    accountId: account.id,
    token,
    location: `${host}/qr/v2/rec/${token}`,
    criacao: ctx.now().toISOString(),
    idRec: null,
  };
  pa(ctx).locrecs.set(id, loc);
  return loc;
}

export function findLocRec(ctx: SandboxContext, account: SandboxAccount, id: number): LocRecRecord | null {
  const loc = pa(ctx).locrecs.get(id);
  return loc && loc.accountId === account.id ? loc : null;
}

export function findRecByLocationToken(ctx: SandboxContext, token: string): RecRecord | null {
  for (const loc of pa(ctx).locrecs.values())
    if (loc.token === token && loc.idRec) return pa(ctx).recs.get(loc.idRec) ?? null;
  return null;
}

export function locRecJson(loc: LocRecRecord) {
  return {
    id: loc.id,
    location: loc.location,
    criacao: loc.criacao,
    ...(loc.idRec ? { idRec: loc.idRec } : {}),
  };
}

// ------------------------------------------------------------------------------------------- rec

export interface RecInput {
  vinculo: RecRecord['vinculo'];
  calendario: RecRecord['calendario'];
  valor?: RecRecord['valor'];
  politicaRetentativa: PoliticaRetentativa;
  loc?: number;
  convenio?: string;
  txid?: string;
}

function recInvalid(detail: string, propriedade: string, razao: string): PixProblem {
  return new PixProblem('RecOperacaoInvalida', detail, [{ propriedade, razao }]);
}

/** A location of the account's, free (not serving another recurrence). */
function freeLocation(ctx: SandboxContext, account: SandboxAccount, id: number, idRec: string | null): LocRecRecord {
  const loc = findLocRec(ctx, account, id);
  if (!loc) throw recInvalid('O location referenciado por rec.loc inexiste.', 'rec.loc', `Nenhuma locrec ${id}.`);
  if (loc.idRec && loc.idRec !== idRec)
    throw recInvalid(
      'O location referenciado por rec.loc já está sendo utilizado por outra recorrência.',
      'rec.loc',
      `A locrec ${id} serve a recorrência ${loc.idRec}.`,
    );
  return loc;
}

export function createRec(ctx: SandboxContext, account: SandboxAccount, input: RecInput): RecRecord {
  const { calendario, valor } = input;
  if (valor?.valorRec !== undefined && valor.valorMinimoRecebedor !== undefined)
    throw recInvalid(
      'Ambos os campos rec.valor.valorRec e rec.valor.valorMinimoRecebedor estão preenchidos.',
      'rec.valor',
      'valorRec (valor fixo) e valorMinimoRecebedor não podem vir juntos.',
    );
  if (calendario.dataInicial < today(ctx))
    throw recInvalid(
      'O campo rec.calendario.dataInicial é anterior à data de criação da recorrência.',
      'rec.calendario.dataInicial',
      `A recorrência é criada em ${today(ctx)}.`,
    );
  if (calendario.dataFinal !== undefined && calendario.dataFinal < calendario.dataInicial)
    throw recInvalid(
      'O campo rec.calendario.dataFinal é anterior ao campo rec.calendario.dataInicial.',
      'rec.calendario.dataFinal',
      'A vigência termina antes de começar.',
    );
  const idRec = newIdRec(ctx, input.politicaRetentativa);
  const loc = input.loc === undefined ? null : freeLocation(ctx, account, input.loc, null);
  const rec: RecRecord = {
    idRec,
    accountId: account.id,
    vinculo: input.vinculo,
    calendario,
    valor: valor ?? {},
    politicaRetentativa: input.politicaRetentativa,
    ...(input.convenio !== undefined ? { convenio: input.convenio } : {}),
    locId: loc?.id ?? null,
    status: 'CRIADA',
    atualizacao: [],
    ativacao: {
      tipoJornada: 'AGUARDANDO_DEFINICAO',
      ...(input.txid !== undefined ? { dadosJornada: { txid: input.txid } } : {}),
    },
  };
  change(ctx, rec.atualizacao, 'CRIADA');
  if (loc) loc.idRec = idRec;
  pa(ctx).recs.set(idRec, rec);
  ctx.logger.info({ idRec }, 'rec created');
  return rec;
}

export function findRec(ctx: SandboxContext, account: SandboxAccount, idRec: string): RecRecord {
  const rec = pa(ctx).recs.get(idRec);
  if (!rec || rec.accountId !== account.id)
    throw new PixProblem('RecNaoEncontrada', `Recorrência não encontrada para o idRec ${idRec.slice(0, 29)}.`);
  return rec;
}

export function listRecs(ctx: SandboxContext, account: SandboxAccount): RecRecord[] {
  return [...pa(ctx).recs.values()].filter((r) => r.accountId === account.id);
}

const FINAL_REC: readonly RecStatus[] = ['REJEITADA', 'EXPIRADA', 'CANCELADA'];

export interface RecRevision {
  status?: 'CANCELADA';
  devedorNome?: string;
  loc?: number;
  dataInicial?: string;
  txid?: string;
}

/** PATCH /rec/{idRec}: the receiver cancels, or revises a few fields (the document's rules). */
export function reviseRec(ctx: SandboxContext, account: SandboxAccount, idRec: string, rev: RecRevision): RecRecord {
  const rec = findRec(ctx, account, idRec);
  if (FINAL_REC.includes(rec.status))
    throw recInvalid(
      'A recorrência encontra-se expirada, cancelada ou rejeitada.',
      'rec.status',
      `A recorrência está ${rec.status}.`,
    );
  if ((rev.loc !== undefined || rev.dataInicial !== undefined) && rec.status !== 'CRIADA')
    throw recInvalid(
      'Os campos rec.loc e rec.calendario.dataInicial somente podem ser alterados quando a recorrência apresentar-se com o status CRIADA.',
      rev.loc !== undefined ? 'rec.loc' : 'rec.calendario.dataInicial',
      `A recorrência está ${rec.status}.`,
    );
  if (rev.dataInicial !== undefined && rev.dataInicial < today(ctx))
    throw recInvalid(
      'O campo rec.calendario.dataInicial é anterior à data de criação da recorrência.',
      'rec.calendario.dataInicial',
      `Hoje é ${today(ctx)}.`,
    );
  const loc = rev.loc === undefined ? null : freeLocation(ctx, account, rev.loc, rec.idRec);
  if (loc) {
    if (rec.locId !== null && rec.locId !== loc.id) pa(ctx).locrecs.get(rec.locId)!.idRec = null;
    loc.idRec = rec.idRec;
    rec.locId = loc.id;
  }
  if (rev.dataInicial !== undefined) rec.calendario.dataInicial = rev.dataInicial;
  if (rev.devedorNome !== undefined) rec.vinculo.devedor = { ...rec.vinculo.devedor, nome: rev.devedorNome };
  if (rev.txid !== undefined) rec.ativacao.dadosJornada = { txid: rev.txid };
  if (rev.status === 'CANCELADA')
    endRec(ctx, rec, 'CANCELADA', {
      cancelamento: {
        solicitante: 'USUARIO_RECEBEDOR',
        codigo: 'SLCR',
        descricao: 'Cancelada pelo usuário recebedor.',
      },
    });
  return rec;
}

/** A final status, with its reason; a live solicrec of the rec is cancelled with it; notified. */
export function endRec(
  ctx: SandboxContext,
  rec: RecRecord,
  status: 'REJEITADA' | 'EXPIRADA' | 'CANCELADA',
  encerramento?: RecRecord['encerramento'],
): void {
  rec.status = status;
  if (encerramento) rec.encerramento = encerramento;
  change(ctx, rec.atualizacao, status);
  for (const solic of pa(ctx).solicrecs.values())
    if (solic.idRec === rec.idRec && LIVE_SOLICREC.includes(solic.status)) setSolicRec(ctx, solic, 'CANCELADA');
  ctx.logger.info({ idRec: rec.idRec, status }, 'rec ended');
  notifyRec(ctx, rec);
}

/** The authorisation was not given in time: the live solicrec, then the rec, EXPIRADA. */
export function expireRec(ctx: SandboxContext, rec: RecRecord): void {
  const solic = liveSolicRec(ctx, rec.idRec);
  if (solic) setSolicRec(ctx, solic, 'EXPIRADA');
  endRec(ctx, rec, 'EXPIRADA');
}

export function approveRec(ctx: SandboxContext, rec: RecRecord, jornada: Exclude<Jornada, 'AGUARDANDO_DEFINICAO'>) {
  if (rec.status !== 'CRIADA')
    throw new PixProblem('RecOperacaoInvalida', `A recorrência está ${rec.status} e não pode ser aprovada.`);
  rec.status = 'APROVADA';
  // The document: dadosJornada is removed when activation is by journeys 1, 2 or 4.
  rec.ativacao = jornada === 'JORNADA_3' ? { ...rec.ativacao, tipoJornada: jornada } : { tipoJornada: jornada };
  change(ctx, rec.atualizacao, 'APROVADA');
  ctx.logger.info({ idRec: rec.idRec, jornada }, 'rec approved');
  notifyRec(ctx, rec);
}

function recebedor(ctx: SandboxContext, rec: { accountId: string }) {
  const account = accountById(ctx, rec.accountId);
  return { cnpj: account.cnpj, nome: account.name };
}

function accountById(ctx: SandboxContext, id: string): SandboxAccount {
  const account = ctx.accounts.get(id);
  if (!account) throw new Error(`no account ${id}`);
  return account;
}

/** The recurrence as GET /rec/{idRec} answers it (RecCompleta), with dadosQR when asked for. */
export function recJson(ctx: SandboxContext, rec: RecRecord, opts: { solicitacoes?: boolean } = {}) {
  const loc = rec.locId === null ? null : pa(ctx).locrecs.get(rec.locId);
  const solicitacao = [...pa(ctx).solicrecs.values()]
    .filter((s) => s.idRec === rec.idRec)
    .map((s) => solicRecJson(ctx, s));
  return {
    idRec: rec.idRec,
    vinculo: rec.vinculo,
    calendario: rec.calendario,
    ...(Object.keys(rec.valor).length ? { valor: rec.valor } : {}),
    recebedor: { ...recebedor(ctx, rec), ...(rec.convenio !== undefined ? { convenio: rec.convenio } : {}) },
    politicaRetentativa: rec.politicaRetentativa,
    ...(loc ? { loc: locRecJson(loc) } : {}),
    status: rec.status,
    atualizacao: rec.atualizacao,
    ...(rec.encerramento ? { encerramento: rec.encerramento } : {}),
    ...(opts.solicitacoes && solicitacao.length ? { solicitacao } : {}),
    ativacao: rec.ativacao,
  };
}

/** RecNotification: what a webhookrec delivery carries for each recurrence. */
export function recNotificationJson(rec: RecRecord) {
  return {
    idRec: rec.idRec,
    status: rec.status,
    atualizacao: rec.atualizacao,
    ...(rec.encerramento ? { encerramento: rec.encerramento } : {}),
    ativacao: rec.ativacao,
  };
}

/** RecPayload, served signed at the recurrence's location (journey 2's QR, journey 3's composite). */
export function recPayloadJson(ctx: SandboxContext, rec: RecRecord) {
  return {
    idRec: rec.idRec,
    vinculo: rec.vinculo,
    calendario: rec.calendario,
    ...(Object.keys(rec.valor).length ? { valor: rec.valor } : {}),
    recebedor: { ...recebedor(ctx, rec), ispbParticipante: SANDBOX_ISPB },
    politicaRetentativa: rec.politicaRetentativa,
    atualizacao: rec.atualizacao,
  };
}

/**
 * dadosQR of GET /rec/{idRec}[?txid=]: journey 2 (the recurrence's location alone) or journey 3
 * (the cob's and the recurrence's); absent when the locations it needs are missing, as the document says.
 */
export function dadosQR(
  ctx: SandboxContext,
  rec: RecRecord,
  cob: { location: string } | null,
): { jornada: 'JORNADA_2' | 'JORNADA_3'; pixCopiaECola: string } | null {
  const loc = rec.locId === null ? null : pa(ctx).locrecs.get(rec.locId);
  if (!loc) return null;
  const merchantName = recebedor(ctx, rec).nome;
  return {
    jornada: cob ? 'JORNADA_3' : 'JORNADA_2',
    pixCopiaECola: buildDynamicBrCode({
      ...(cob ? { location: cob.location } : {}),
      recLocation: loc.location,
      merchantName,
      merchantCity: SANDBOX_MERCHANT.city,
    }),
  };
}

// -------------------------------------------------------------------------------------- solicrec

const LIVE_SOLICREC: readonly SolicRecStatus[] = ['CRIADA', 'ENVIADA', 'RECEBIDA'];

function solicInvalid(detail: string, propriedade: string, razao: string): PixProblem {
  return new PixProblem('SolicRecOperacaoInvalida', detail, [{ propriedade, razao }]);
}

/**
 * POST /solicrec: one live request per recurrence. The sandbox sends it at once and the payer's
 * PSP receives it at once: its atualizacao reads CRIADA, ENVIADA, RECEBIDA.
 */
export function createSolicRec(
  ctx: SandboxContext,
  account: SandboxAccount,
  input: { idRec: string; dataExpiracaoSolicitacao: string; destinatario: SolicRecRecord['destinatario'] },
): SolicRecRecord {
  const rec = pa(ctx).recs.get(input.idRec);
  if (!rec || rec.accountId !== account.id)
    throw solicInvalid(
      'A recorrência solicitrec.idRec inexiste.',
      'solicrec.idRec',
      'Nenhuma recorrência com este idRec.',
    );
  if (rec.status !== 'CRIADA')
    throw solicInvalid(
      'A recorrência não está CRIADA.',
      'solicrec.idRec',
      `A recorrência está ${rec.status}: não há o que solicitar.`,
    );
  if (Date.parse(input.dataExpiracaoSolicitacao) <= ctx.now().getTime())
    throw solicInvalid(
      'O campo solicrec.calendario.dataExpiracaoSolicitacao é anterior à data de criação da solicitação da recorrência.',
      'solicrec.calendario.dataExpiracaoSolicitacao',
      'A expiração tem de ser futura.',
    );
  for (const s of pa(ctx).solicrecs.values())
    if (s.idRec === rec.idRec && LIVE_SOLICREC.includes(s.status))
      throw solicInvalid(
        'Existe uma solicitação ativa referente ao mesmo solicrec.idRec.',
        'solicrec.idRec',
        `A solicitação ${s.idSolicRec} está ${s.status}.`,
      );
  const solic: SolicRecRecord = {
    idSolicRec: newIdSolicRec(ctx),
    idRec: rec.idRec,
    accountId: account.id,
    dataExpiracaoSolicitacao: input.dataExpiracaoSolicitacao,
    destinatario: input.destinatario,
    status: 'CRIADA',
    atualizacao: [],
  };
  change(ctx, solic.atualizacao, 'CRIADA');
  pa(ctx).solicrecs.set(solic.idSolicRec, solic);
  setSolicRec(ctx, solic, 'ENVIADA');
  setSolicRec(ctx, solic, 'RECEBIDA');
  return solic;
}

function setSolicRec(ctx: SandboxContext, solic: SolicRecRecord, status: SolicRecStatus): void {
  solic.status = status;
  change(ctx, solic.atualizacao, status);
}

export function findSolicRec(ctx: SandboxContext, account: SandboxAccount, id: string): SolicRecRecord {
  const solic = pa(ctx).solicrecs.get(id);
  if (!solic || solic.accountId !== account.id)
    throw new PixProblem('SolicRecNaoEncontrada', `Solicitação de recorrência ${id.slice(0, 29)} não encontrada.`);
  return solic;
}

/** PATCH /solicrec/{id}: the receiver cancels a live request (its recurrence stays CRIADA). */
export function cancelSolicRec(ctx: SandboxContext, account: SandboxAccount, id: string): SolicRecRecord {
  const solic = findSolicRec(ctx, account, id);
  if (!LIVE_SOLICREC.includes(solic.status))
    throw solicInvalid(
      'Não é possível cancelar uma solicitação de recorrência com o status diferente de CRIADA, ENVIADA ou RECEBIDA.',
      'solicrec.status',
      `A solicitação está ${solic.status}.`,
    );
  setSolicRec(ctx, solic, 'CANCELADA');
  return solic;
}

/** The live journey-1 request of a recurrence (for the payer's controls). */
export function liveSolicRec(ctx: SandboxContext, idRec: string): SolicRecRecord | null {
  for (const s of pa(ctx).solicrecs.values()) if (s.idRec === idRec && LIVE_SOLICREC.includes(s.status)) return s;
  return null;
}

/** The payer answers journey 1's request: ACEITA approves the recurrence, REJEITADA rejects it. */
export function answerSolicRec(ctx: SandboxContext, solic: SolicRecRecord, accept: boolean): void {
  const rec = pa(ctx).recs.get(solic.idRec)!;
  setSolicRec(ctx, solic, accept ? 'ACEITA' : 'REJEITADA');
  if (accept) approveRec(ctx, rec, 'JORNADA_1');
  else
    endRec(ctx, rec, 'REJEITADA', {
      rejeicao: { codigo: 'AP13', descricao: 'O usuário pagador recusou a recorrência.' },
    });
}

/** SolicRecCompleta, with the recurrence the payer is asked to accept (recPayload), as the document's examples. */
export function solicRecJson(ctx: SandboxContext, solic: SolicRecRecord) {
  const rec = pa(ctx).recs.get(solic.idRec)!;
  return {
    idSolicRec: solic.idSolicRec,
    idRec: solic.idRec,
    calendario: { dataExpiracaoSolicitacao: solic.dataExpiracaoSolicitacao },
    destinatario: solic.destinatario,
    status: solic.status,
    atualizacao: solic.atualizacao,
    recPayload: recPayloadJson(ctx, rec),
  };
}

// ------------------------------------------------------------------------------------------ cobr

export interface CobRInput {
  idRec: string;
  dataDeVencimento: string;
  original: string;
  ajusteDiaUtil?: boolean;
  infoAdicional?: string;
  recebedor: NonNullable<CobRRecord['recebedor']>;
  devedor?: Record<string, unknown>;
}

function cobrInvalid(detail: string, propriedade: string, razao: string): PixProblem {
  return new PixProblem('CobROperacaoInvalida', detail, [{ propriedade, razao }]);
}

/** Which cycle of the recurrence a date falls in (0 for the one that starts at dataInicial). */
export function cycleOf(rec: RecRecord, date: string): number {
  const start = rec.calendario.dataInicial;
  if (rec.calendario.periodicidade === 'SEMANAL') return Math.floor(daysBetween(start, date) / 7);
  const months = { MENSAL: 1, TRIMESTRAL: 3, SEMESTRAL: 6, ANUAL: 12 }[rec.calendario.periodicidade];
  const [y0, m0, d0] = start.split('-').map(Number);
  const [y1, m1, d1] = date.split('-').map(Number);
  const elapsed = (y1 - y0) * 12 + (m1 - m0) - (d1 < d0 ? 1 : 0);
  return Math.floor(elapsed / months);
}

const LIVE_COBR: readonly CobRStatus[] = ['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA'];

/**
 * PUT /cobr/{txid} and POST /cobr: for an APROVADA recurrence of the account, a due date not in the
 * past, at most one cobr per cycle that is not REJEITADA or CANCELADA. The payer's PSP schedules it
 * at once: CRIADA then ATIVA, its first attempt AGENDADA for the due date. A PUT of a txid that exists
 * with the same content answers it unchanged (a retried create).
 */
export function putCobR(ctx: SandboxContext, account: SandboxAccount, txid: string, input: CobRInput): CobRRecord {
  const known = pa(ctx).cobrs.get(txid);
  if (known) {
    if (
      known.accountId === account.id &&
      known.idRec === input.idRec &&
      known.dataDeVencimento === input.dataDeVencimento &&
      known.amountCents === valorToCents(input.original)
    )
      return known;
    throw cobrInvalid('O campo cobr.txid encontra-se em uso.', 'cobr.txid', 'Outra cobrança usa este txid.');
  }
  if (input.recebedor.conta !== account.conta)
    throw cobrInvalid(
      'Os campos cobr.recebedor.conta e cobr.recebedor.agencia correspondem a uma conta que não pertence a este usuário recebedor.',
      'cobr.recebedor.conta',
      'A conta não é a deste usuário recebedor.',
    );
  const rec = pa(ctx).recs.get(input.idRec);
  if (!rec || rec.accountId !== account.id)
    throw cobrInvalid('A recorrência cobr.idRec inexiste.', 'cobr.idRec', 'Nenhuma recorrência com este idRec.');
  if (rec.status !== 'APROVADA')
    throw cobrInvalid(
      'A recorrência de cobr.idRec não está APROVADA.',
      'cobr.idRec',
      `A recorrência está ${rec.status}.`,
    );
  if (input.dataDeVencimento < today(ctx))
    throw cobrInvalid(
      'O campo cobr.calendario.dataDeVencimento é anterior à data de criação da cobrança.',
      'cobr.calendario.dataDeVencimento',
      `Hoje é ${today(ctx)}.`,
    );
  if (input.dataDeVencimento < rec.calendario.dataInicial)
    throw cobrInvalid(
      'O campo cobr.calendario.dataDeVencimento é anterior ao início da recorrência.',
      'cobr.calendario.dataDeVencimento',
      `A recorrência começa em ${rec.calendario.dataInicial}.`,
    );
  if (rec.valor.valorRec !== undefined && rec.valor.valorRec !== input.original)
    throw cobrInvalid(
      'O campo cobr.valor.original difere do valor fixo da recorrência.',
      'cobr.valor.original',
      `A recorrência tem valorRec ${rec.valor.valorRec}.`,
    );
  const cycle = cycleOf(rec, input.dataDeVencimento);
  for (const other of pa(ctx).cobrs.values())
    if (other.idRec === rec.idRec && LIVE_COBR.includes(other.status) && cycleOf(rec, other.dataDeVencimento) === cycle)
      throw cobrInvalid(
        'Existe uma CobR com status diferente de REJEITADA e CANCELADA referente ao mesmo cobr.idRec com calendario.dataDeVencimento no mesmo ciclo.',
        'cobr.calendario.dataDeVencimento',
        `A cobrança ${other.txid} (${other.status}) é deste ciclo.`,
      );
  const cobr: CobRRecord = {
    txid,
    idRec: rec.idRec,
    accountId: account.id,
    criacao: today(ctx),
    dataDeVencimento: input.dataDeVencimento,
    amountCents: valorToCents(input.original),
    ajusteDiaUtil: input.ajusteDiaUtil ?? true,
    ...(input.infoAdicional !== undefined ? { infoAdicional: input.infoAdicional } : {}),
    recebedor: input.recebedor,
    ...(input.devedor ? { devedor: input.devedor } : {}),
    status: 'CRIADA',
    atualizacao: [],
    tentativas: [],
    paid: null,
  };
  change(ctx, cobr.atualizacao, 'CRIADA');
  pa(ctx).cobrs.set(txid, cobr);
  addAttempt(ctx, cobr, input.dataDeVencimento, 'AGND');
  setCobR(ctx, cobr, 'ATIVA');
  return cobr;
}

function addAttempt(ctx: SandboxContext, cobr: CobRRecord, date: string, tipo: TentativaRecord['tipo']): void {
  const attempt: TentativaRecord = {
    dataLiquidacao: date,
    tipo,
    status: 'SOLICITADA',
    // The PSP's identifier of the settlement it will try (the payer's PSP mints the real one).
    endToEndId: generateEndToEndId(SANDBOX_ISPB, new Date(`${date}T03:00:00Z`)),
    atualizacao: [],
  };
  change(ctx, attempt.atualizacao, 'SOLICITADA');
  attempt.status = 'AGENDADA';
  change(ctx, attempt.atualizacao, 'AGENDADA');
  cobr.tentativas.push(attempt);
}

function setCobR(ctx: SandboxContext, cobr: CobRRecord, status: CobRStatus): void {
  cobr.status = status;
  change(ctx, cobr.atualizacao, status);
  ctx.logger.info({ txid: cobr.txid, idRec: cobr.idRec, status }, 'cobr status');
  notifyCobR(ctx, cobr);
}

export function findCobR(ctx: SandboxContext, account: SandboxAccount, txid: string): CobRRecord {
  const cobr = pa(ctx).cobrs.get(txid);
  if (!cobr || cobr.accountId !== account.id)
    throw new PixProblem('CobRNaoEncontrado', `Cobrança recorrente não encontrada para o txid ${txid.slice(0, 35)}.`);
  return cobr;
}

export function listCobRs(ctx: SandboxContext, account: SandboxAccount): CobRRecord[] {
  return [...pa(ctx).cobrs.values()].filter((c) => c.accountId === account.id);
}

/** PATCH /cobr/{txid} status CANCELADA: only before the day of the first settlement attempt. */
export function cancelCobR(ctx: SandboxContext, account: SandboxAccount, txid: string): CobRRecord {
  const cobr = findCobR(ctx, account, txid);
  if (cobr.status === 'CANCELADA') return cobr;
  if (cobr.status !== 'ATIVA' && cobr.status !== 'CRIADA')
    throw cobrInvalid('A cobrança não pode ser cancelada.', 'cobr.status', `A cobrança está ${cobr.status}.`);
  if (today(ctx) >= cobr.tentativas[0].dataLiquidacao)
    throw cobrInvalid(
      'Não é possível cancelar uma cobrança em uma data igual ou maior que a data prevista da primeira tentativa de liquidação.',
      'cobr.status',
      `A primeira tentativa é em ${cobr.tentativas[0].dataLiquidacao}.`,
    );
  endAttempt(ctx, cobr, 'CANCELADA');
  cobr.encerramento = {
    cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR', descricao: 'Cancelada pelo usuário recebedor.' },
  };
  setCobR(ctx, cobr, 'CANCELADA');
  return cobr;
}

/**
 * POST /cobr/{txid}/retentativa/{data}: under PERMITE_3R_7D only, for an ATIVA cobr whose last attempt
 * failed, on a future date within 7 days of the due date, at most 3 retries, none on the same date.
 */
export function retryCobR(ctx: SandboxContext, account: SandboxAccount, txid: string, data: string): CobRRecord {
  const cobr = findCobR(ctx, account, txid);
  const rec = pa(ctx).recs.get(cobr.idRec)!;
  const refuse = (razao: string, detail = 'A retentativa não pode ser solicitada.') =>
    cobrInvalid(detail, 'data', razao);
  if (rec.politicaRetentativa !== 'PERMITE_3R_7D')
    throw refuse(
      'A recorrência tem politicaRetentativa NAO_PERMITE.',
      'A política configurada na recorrência não permite retentativa de cobrança.',
    );
  if (cobr.status !== 'ATIVA') throw refuse(`A cobrança está ${cobr.status}.`);
  const pending = cobr.tentativas.find((t) => t.status === 'SOLICITADA' || t.status === 'AGENDADA');
  if (pending)
    throw refuse(
      `A tentativa de ${pending.dataLiquidacao} está ${pending.status}.`,
      'Existe uma tentativa com status SOLICITADA ou AGENDADA.',
    );
  if (data <= today(ctx)) throw refuse(`Hoje é ${today(ctx)}.`, 'O parâmetro data não corresponde a uma data futura.');
  if (data <= cobr.dataDeVencimento)
    throw refuse(`Uma retentativa é posterior ao vencimento, ${cobr.dataDeVencimento}.`);
  if (daysBetween(cobr.dataDeVencimento, data) > RETRY_WINDOW_DAYS)
    throw refuse(`As retentativas cabem em ${RETRY_WINDOW_DAYS} dias após ${cobr.dataDeVencimento}.`);
  if (cobr.tentativas.some((t) => t.dataLiquidacao === data))
    throw refuse(`Já houve uma tentativa em ${data}.`, 'Existe uma tentativa vigente para a data informada.');
  if (cobr.tentativas.filter((t) => t.tipo === 'RIFL').length >= MAX_RETRIES)
    throw refuse(`A cobrança já teve ${MAX_RETRIES} retentativas.`);
  addAttempt(ctx, cobr, data, 'RIFL');
  notifyCobR(ctx, cobr);
  return cobr;
}

function currentAttempt(cobr: CobRRecord): TentativaRecord | null {
  return cobr.tentativas.find((t) => t.status === 'SOLICITADA' || t.status === 'AGENDADA') ?? null;
}

function endAttempt(
  ctx: SandboxContext,
  cobr: CobRRecord,
  status: 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA',
): TentativaRecord | null {
  const attempt = currentAttempt(cobr);
  if (!attempt) return null;
  attempt.status = status;
  change(ctx, attempt.atualizacao, status);
  return attempt;
}

/** The payer's PSP settles the scheduled attempt: CONCLUIDA, a received Pix that credits the account. */
export function payCobR(ctx: SandboxContext, cobr: CobRRecord): CobRRecord {
  if (cobr.status !== 'ATIVA' || !currentAttempt(cobr))
    throw cobrInvalid('Não há tentativa agendada a pagar.', 'cobr.status', `A cobrança está ${cobr.status}.`);
  const attempt = endAttempt(ctx, cobr, 'PAGA')!;
  cobr.paid = { endToEndId: attempt.endToEndId, paidAt: ctx.now().toISOString() };
  // Not journaled (Pix Automático is in memory only), yet a received Pix: the balances must see it.
  ctx.state.revision++;
  setCobR(ctx, cobr, 'CONCLUIDA');
  return cobr;
}

/** The attempt is rejected; one of FINAL_REJECTION_CODES also rejects the cobr. */
export function rejectCobR(ctx: SandboxContext, cobr: CobRRecord, codigo: string): CobRRecord {
  if (cobr.status !== 'ATIVA' || !currentAttempt(cobr))
    throw cobrInvalid('Não há tentativa agendada a rejeitar.', 'cobr.status', `A cobrança está ${cobr.status}.`);
  const attempt = endAttempt(ctx, cobr, 'REJEITADA')!;
  const descricao = `Tentativa rejeitada pelo PSP pagador (${codigo}).`;
  attempt.rejeicao = { codigo, descricao };
  if ((FINAL_REJECTION_CODES as readonly string[]).includes(codigo)) {
    cobr.encerramento = { rejeicao: { codigo, descricao } };
    setCobR(ctx, cobr, 'REJEITADA');
  } else notifyCobR(ctx, cobr);
  return cobr;
}

/** The cycle ends unpaid: the pending attempt (if any) and the cobr EXPIRADA. */
export function expireCobR(ctx: SandboxContext, cobr: CobRRecord): CobRRecord {
  if (cobr.status !== 'ATIVA')
    throw cobrInvalid('A cobrança não está ATIVA.', 'cobr.status', `A cobrança está ${cobr.status}.`);
  endAttempt(ctx, cobr, 'EXPIRADA');
  setCobR(ctx, cobr, 'EXPIRADA');
  return cobr;
}

/** CobRGerada / CobRCompleta. */
export function cobrJson(ctx: SandboxContext, cobr: CobRRecord) {
  const rec = pa(ctx).recs.get(cobr.idRec)!;
  const account = accountById(ctx, cobr.accountId);
  return {
    idRec: cobr.idRec,
    txid: cobr.txid,
    ...(cobr.infoAdicional !== undefined ? { infoAdicional: cobr.infoAdicional } : {}),
    calendario: { criacao: cobr.criacao, dataDeVencimento: cobr.dataDeVencimento },
    valor: { original: centsToValor(cobr.amountCents) },
    ajusteDiaUtil: cobr.ajusteDiaUtil,
    recebedor: {
      ...recebedor(ctx, cobr),
      ...(cobr.recebedor ?? { conta: account.conta, tipoConta: 'CORRENTE', agencia: '0001' }),
    },
    ...(cobr.devedor ? { devedor: cobr.devedor } : {}),
    status: cobr.status,
    politicaRetentativa: rec.politicaRetentativa,
    atualizacao: cobr.atualizacao,
    ...(cobr.encerramento ? { encerramento: cobr.encerramento } : {}),
    tentativas: cobr.tentativas,
    ...cobrPix(cobr),
  };
}

/** The Pix received on a paid cobr (CobRCompleta's and CobRNotification's `pix`): a receiver credits on it. */
function cobrPix(cobr: CobRRecord) {
  if (!cobr.paid) return {};
  const { endToEndId, paidAt } = cobr.paid;
  return { pix: [{ endToEndId, txid: cobr.txid, valor: centsToValor(cobr.amountCents), horario: paidAt }] };
}

/** CobRNotification. */
export function cobrNotificationJson(cobr: CobRRecord) {
  return {
    idRec: cobr.idRec,
    txid: cobr.txid,
    status: cobr.status,
    atualizacao: cobr.atualizacao,
    ...(cobr.encerramento ? { encerramento: cobr.encerramento } : {}),
    tentativas: cobr.tentativas,
    ...cobrPix(cobr),
  };
}

/** The account's key a cobr's payment is received on (the first of its keys). */
export function cobrPixKey(ctx: SandboxContext, cobr: CobRRecord): string {
  return accountById(ctx, cobr.accountId).keys[0];
}

// ---------------------------------------------------------------------------------- notifications

function notifyRec(ctx: SandboxContext, rec: RecRecord): void {
  const webhook = pa(ctx).webhookRec.get(rec.accountId);
  if (!webhook) return;
  ctx.callbacks.deliverJson(
    { eventId: `evt_${randomAlphanumeric(24)}`, subjectId: rec.idRec, body: { recs: [recNotificationJson(rec)] } },
    `${webhook.webhookUrl}/rec`,
  );
}

function notifyCobR(ctx: SandboxContext, cobr: CobRRecord): void {
  const webhook = pa(ctx).webhookCobR.get(cobr.accountId);
  if (!webhook) return;
  ctx.callbacks.deliverJson(
    { eventId: `evt_${randomAlphanumeric(24)}`, subjectId: cobr.txid, body: { cobsr: [cobrNotificationJson(cobr)] } },
    `${webhook.webhookUrl}/cobr`,
  );
}
