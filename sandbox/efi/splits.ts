/**
 * Efí's Split Pix (the SDK's pixSplitConfig*, pixSplitLinkCharge, pixSplitUnlinkCharge,
 * pixSplitDetailCharge): an account writes a split configuration (its own share, `minhaParte`, and
 * up to 20 `repasses` to other accounts of the PSP, each named by its number `conta` and its
 * holder's document), links it to one of its ATIVA cobs, and when the cob is paid the PSP divides
 * the amount between the accounts at settlement. Nothing is stored per payment: each account's
 * share is derived from the cob's linked revision (balances.ts), so a restart loses nothing.
 *
 * Rules the sandbox applies (its own where Efí's pages say nothing the SDK shows): every share
 * of one configuration has the same `tipo`; percentages add up to exactly 100.00; fixed amounts
 * add up to the cob's value when it is linked; a repasse names another account of this PSP with
 * its CNPJ; `lancamento.imediato` must be true (a deferred credit is not simulated). Percentage
 * shares are rounded down to the cent and the configuring account keeps the remainder.
 */
import { randomAlphanumeric } from '../../core/pix/random';
import type { SandboxAccount } from '../accounts';
import type { SandboxContext } from '../context';
import { findAccountCob, type CobCharge } from '../pixApi/cobs';
import { PixProblem } from '../pixApi/problem';
import { centsToValor, VALOR_RE } from '../pixApi/valor';
import type { ChargeRecord, SplitConfigContent, SplitConfigRecord, SplitShare } from '../state';
import { invalid, isObject, onlyKeys } from './bodyChecks';
import { EfiError } from './errors';

export const SPLIT_CONFIG_ID_RE = /^[a-zA-Z0-9]{1,35}$/;
const MAX_REPASSES = 20;

function share(v: unknown, where: string): SplitShare {
  if (!isObject(v)) throw invalid(`Campo ${where} é obrigatório.`);
  if (v.tipo !== 'porcentagem' && v.tipo !== 'fixo') throw invalid(`Campo ${where}.tipo deve ser porcentagem ou fixo.`);
  if (typeof v.valor !== 'string' || !VALOR_RE.test(v.valor))
    throw invalid(`Campo ${where}.valor deve ser uma string com duas casas decimais, como 60.00.`);
  return { tipo: v.tipo, hundredths: Number(v.valor.replace('.', '')) };
}

function repasse(ctx: SandboxContext, owner: SandboxAccount, v: unknown, i: number) {
  const where = `split.repasses[${i}]`;
  if (!isObject(v)) throw invalid(`Campo ${where} deve ser um objeto.`);
  onlyKeys(v, ['tipo', 'valor', 'favorecido'], where);
  const { tipo, hundredths } = share(v, where);
  if (hundredths === 0) throw invalid(`Campo ${where}.valor deve ser maior que zero.`);
  const f = v.favorecido;
  if (!isObject(f) || typeof f.conta !== 'string') throw invalid(`Campo ${where}.favorecido.conta é obrigatório.`);
  onlyKeys(f, ['cpf', 'cnpj', 'conta'], `${where}.favorecido`);
  const document = f.cnpj ?? f.cpf;
  if (typeof document !== 'string' || (f.cpf !== undefined && f.cnpj !== undefined))
    throw invalid(`Informe ${where}.favorecido.cpf ou ${where}.favorecido.cnpj (um deles).`);
  const account = ctx.accounts.byConta(f.conta);
  if (!account || account.cnpj !== document)
    throw invalid(`${where}.favorecido não é uma conta deste PSP com este documento.`);
  if (account.id === owner.id) throw invalid(`${where}.favorecido é a própria conta: a parte dela é minhaParte.`);
  const favorecido = f.cnpj !== undefined ? { cnpj: document, conta: f.conta } : { cpf: document, conta: f.conta };
  return { tipo, hundredths, favorecido };
}

/** The body of PUT /v2/gn/split/config/{id} (and POST), by the SDK's schema and the rules above. */
export function readSplitConfig(ctx: SandboxContext, owner: SandboxAccount, body: unknown): SplitConfigContent {
  if (!isObject(body)) throw invalid('O corpo deve ser um objeto JSON com descricao, lancamento e split.');
  onlyKeys(body, ['descricao', 'txid', 'lancamento', 'split'], 'body');
  const { descricao, txid, lancamento, split } = body;
  if (typeof descricao !== 'string' || descricao.length < 1 || descricao.length > 140)
    throw invalid('Campo descricao é obrigatório (até 140 caracteres).');
  if (txid !== undefined && (typeof txid !== 'string' || !/^[a-zA-Z0-9]{26,35}$/.test(txid)))
    throw invalid('Campo txid deve ter de 26 a 35 caracteres alfanuméricos.');
  if (!isObject(lancamento) || typeof lancamento.imediato !== 'boolean')
    throw invalid('Campo lancamento.imediato é obrigatório.');
  onlyKeys(lancamento, ['imediato'], 'lancamento');
  if (!lancamento.imediato)
    throw invalid('lancamento.imediato false (lançamento futuro) não é simulado por este sandbox.');
  if (!isObject(split)) throw invalid('Campo split é obrigatório.');
  onlyKeys(split, ['divisaoTarifa', 'minhaParte', 'repasses'], 'split');
  if (split.divisaoTarifa !== 'assumir_total' && split.divisaoTarifa !== 'proporcional')
    throw invalid('Campo split.divisaoTarifa deve ser assumir_total ou proporcional.');
  if (isObject(split.minhaParte)) onlyKeys(split.minhaParte, ['tipo', 'valor'], 'split.minhaParte');
  const minhaParte = share(split.minhaParte, 'split.minhaParte');
  if (!Array.isArray(split.repasses) || split.repasses.length < 1 || split.repasses.length > MAX_REPASSES)
    throw invalid(`Campo split.repasses deve ter de 1 a ${MAX_REPASSES} repasses.`);
  const repasses = split.repasses.map((r, i) => repasse(ctx, owner, r, i));
  if (repasses.some((r) => r.tipo !== minhaParte.tipo))
    throw invalid('Todas as partes do split devem ter o mesmo tipo (porcentagem ou fixo).');
  const contas = repasses.map((r) => r.favorecido.conta);
  if (new Set(contas).size !== contas.length) throw invalid('Cada conta aparece em um repasse só.');
  if (minhaParte.tipo === 'porcentagem' && total({ minhaParte, repasses }) !== 10_000)
    throw invalid('As porcentagens de minhaParte e dos repasses devem somar 100.00.');
  return {
    descricao,
    txid: typeof txid === 'string' ? txid : null,
    imediato: true,
    divisaoTarifa: split.divisaoTarifa,
    minhaParte,
    repasses,
  };
}

function total(c: Pick<SplitConfigContent, 'minhaParte' | 'repasses'>): number {
  return c.minhaParte.hundredths + c.repasses.reduce((s, r) => s + r.hundredths, 0);
}

function current(config: SplitConfigRecord): SplitConfigContent & { criacao: string } {
  return config.revisions[config.revisions.length - 1];
}

export function findAccountSplitConfig(
  ctx: SandboxContext,
  account: SandboxAccount,
  id: string,
): SplitConfigRecord | null {
  const config = ctx.state.splitConfigs.get(id);
  return config && config.accountId === account.id ? config : null;
}

function configNotFound(id: string): EfiError {
  return new EfiError(404, 'split_nao_encontrado', `Nenhuma configuração de split com o id ${id.slice(0, 40)}.`);
}

/** PUT /v2/gn/split/config/{id}: a new configuration, or a new revision of the account's own. */
export function putSplitConfig(
  ctx: SandboxContext,
  account: SandboxAccount,
  id: string,
  content: SplitConfigContent,
): { config: SplitConfigRecord; created: boolean } {
  if (!SPLIT_CONFIG_ID_RE.test(id)) throw invalid('O id da configuração deve ter de 1 a 35 caracteres alfanuméricos.');
  const known = ctx.state.splitConfigs.get(id);
  if (known && known.accountId !== account.id) throw invalid('O id de configuração de split já está em uso.');
  const revision = { ...content, criacao: ctx.now().toISOString() };
  const config = known ?? { id, accountId: account.id, revisions: [] };
  const unchanged =
    known && JSON.stringify({ ...current(known), criacao: '' }) === JSON.stringify({ ...revision, criacao: '' });
  if (!unchanged) config.revisions.push(revision);
  ctx.state.splitConfigs.set(id, config);
  ctx.journal.splitConfig(config);
  ctx.logger.info(
    { splitConfigId: id, accountId: account.id, revisao: config.revisions.length - 1 },
    'split config written',
  );
  return { config, created: !known };
}

/** A new configuration with an id of the PSP's (POST /v2/gn/split/config). */
export function newSplitConfigId(): string {
  return randomAlphanumeric(32);
}

function shareJson(s: SplitShare) {
  return { tipo: s.tipo, valor: centsToValor(s.hundredths) };
}

/** The configuration as Efí's SDK types it (PixSplitDetailConfigResponse). */
export function splitConfigJson(config: SplitConfigRecord, revisao = config.revisions.length - 1) {
  const c = config.revisions[revisao];
  return {
    id: config.id,
    status: 'ATIVA',
    ...(c.txid ? { txid: c.txid } : {}),
    descricao: c.descricao,
    lancamento: { imediato: c.imediato },
    split: {
      divisaoTarifa: c.divisaoTarifa,
      minhaParte: shareJson(c.minhaParte),
      repasses: c.repasses.map((r) => ({ ...shareJson(r), favorecido: r.favorecido })),
    },
    revisao,
  };
}

function accountCobOr404(ctx: SandboxContext, account: SandboxAccount, txid: string): CobCharge {
  const rec = findAccountCob(ctx, account, txid);
  if (!rec) throw new PixProblem('CobNaoEncontrado', `Nenhuma cobrança com o txid ${txid.slice(0, 40)}.`);
  return rec;
}

function activeOr400(ctx: SandboxContext, rec: CobCharge): void {
  if (rec.charge.status !== 'ACTIVE' || Date.parse(rec.charge.expiresAt) <= ctx.now().getTime())
    throw invalid('A cobrança não está ATIVA: o vínculo de split não pode mudar.');
}

/** PUT /v2/gn/split/cob/{txid}/vinculo/{splitConfigId}: the cob is divided by this revision when paid. */
export function linkSplit(ctx: SandboxContext, account: SandboxAccount, txid: string, configId: string): void {
  const rec = accountCobOr404(ctx, account, txid);
  const config = findAccountSplitConfig(ctx, account, configId);
  if (!config) throw configNotFound(configId);
  activeOr400(ctx, rec);
  const content = current(config);
  if (content.minhaParte.tipo === 'fixo' && total(content) !== rec.charge.amountCents)
    throw invalid(
      `Os valores fixos do split somam ${centsToValor(total(content))}, e a cobrança vale ${centsToValor(rec.charge.amountCents)}.`,
    );
  rec.cob.split = { configId, revisao: config.revisions.length - 1 };
  ctx.journal.charge(rec);
  ctx.logger.info({ txid, splitConfigId: configId }, 'split linked to cob');
}

/** DELETE /v2/gn/split/cob/{txid}/vinculo. */
export function unlinkSplit(ctx: SandboxContext, account: SandboxAccount, txid: string): void {
  const rec = accountCobOr404(ctx, account, txid);
  if (!rec.cob.split) throw configNotFound(txid);
  activeOr400(ctx, rec);
  rec.cob.split = null;
  ctx.journal.charge(rec);
  ctx.logger.info({ txid }, 'split unlinked from cob');
}

/** GET /v2/gn/split/cob/{txid}: the cob's split, for the cob view. */
export function linkedSplit(
  ctx: SandboxContext,
  account: SandboxAccount,
  txid: string,
): { rec: CobCharge; config: SplitConfigRecord } {
  const rec = accountCobOr404(ctx, account, txid);
  const config = rec.cob.split ? ctx.state.splitConfigs.get(rec.cob.split.configId) : undefined;
  if (!config) throw configNotFound(txid);
  return { rec, config };
}

/**
 * How a paid cob's amount is divided between accounts (account id → cents), or null when no
 * split is linked: each repasse its share (percentages rounded down to the cent, fixed amounts
 * never past what is left), the cob's account the rest.
 */
export function splitOfPayment(
  ctx: SandboxContext,
  rec: ChargeRecord,
  ownerId: string,
  amountCents: number,
): Map<string, number> | null {
  const link = rec.cob?.split;
  const config = link ? ctx.state.splitConfigs.get(link.configId) : undefined;
  if (!link || !config) return null;
  const content = config.revisions[link.revisao];
  const shares = new Map<string, number>();
  let left = amountCents;
  for (const r of content.repasses) {
    const account = ctx.accounts.byConta(r.favorecido.conta);
    if (!account) continue;
    const wanted = r.tipo === 'porcentagem' ? Math.floor((amountCents * r.hundredths) / 10_000) : r.hundredths;
    const cents = Math.min(wanted, left);
    left -= cents;
    shares.set(account.id, (shares.get(account.id) ?? 0) + cents);
  }
  shares.set(ownerId, (shares.get(ownerId) ?? 0) + left);
  return shares;
}
