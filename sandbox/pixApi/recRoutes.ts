/**
 * Pix Automático's routes of API Pix (recs.ts has the rules): /locrec, /rec, /solicrec, /cobr,
 * /cobr/{txid}/retentativa/{data}, /webhookrec and /webhookcobr, each behind its scope, each on
 * the token's account only, list routes paginated as GET /cob is.
 */
import { Router, type Request } from 'express';
import { z } from 'zod';
import { generateTxid } from '../../core/pix/brcode';
import { requestAccount } from '../accounts';
import type { SandboxContext } from '../context';
import { findAccountCob } from './cobs';
import { requireScope } from './oauth';
import { paginate, readPage } from './pagination';
import { pathParam } from './pathParam';
import { PixProblem } from './problem';
import { inWindowForDebtor, listPage, readListFilters } from './listFilters';
import { QueryReader } from './queryReader';
import {
  cancelCobR,
  cancelSolicRec,
  cobrJson,
  createLocRec,
  createRec,
  createSolicRec,
  dadosQR,
  findCobR,
  findLocRec,
  findRec,
  findSolicRec,
  listCobRs,
  listRecs,
  locRecJson,
  putCobR,
  recJson,
  retryCobR,
  reviseRec,
  solicRecJson,
  type WebhookRecRecord,
} from './recs';
import { CNPJ_RE, CPF_RE, parseBody, TXID_RE, webhookSchema } from './schemas';
import { VALOR_RE } from './valor';

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const ID_REC_RE = /^[a-zA-Z0-9]{29}$/;
const date = z
  .string()
  .regex(DATE_RE, 'uma data YYYY-MM-DD')
  .refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'uma data que existe',
  );
const valor = z.string().regex(VALOR_RE, 'um valor decimal com ponto e duas casas, como "12.34"');
const devedor = z.union([
  z.object({ cpf: z.string().regex(CPF_RE, '11 dígitos'), nome: z.string().min(1).max(140) }).strict(),
  z.object({ cnpj: z.string().regex(CNPJ_RE, '14 caracteres'), nome: z.string().min(1).max(140) }).strict(),
]);
const locId = z.number().int().positive();
const ativacao = z.object({ dadosJornada: z.object({ txid: z.string().regex(TXID_RE, 'um txid') }).optional() });

/** RecSolicitada (POST /rec). */
const recSchema = z.object({
  vinculo: z.object({ objeto: z.string().max(35).optional(), contrato: z.string().min(1).max(35), devedor }),
  calendario: z.object({
    dataInicial: date,
    dataFinal: date.optional(),
    periodicidade: z.enum(['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL']),
  }),
  valor: z.object({ valorRec: valor.optional(), valorMinimoRecebedor: valor.optional() }).optional(),
  recebedor: z.object({ convenio: z.string().max(60).optional() }).optional(),
  politicaRetentativa: z.enum(['NAO_PERMITE', 'PERMITE_3R_7D']),
  loc: locId.optional(),
  ativacao: ativacao.optional(),
});

/** RecRevisada (PATCH /rec/{idRec}). */
const recRevisionSchema = z.object({
  status: z.literal('CANCELADA').optional(),
  vinculo: z.object({ devedor: z.object({ nome: z.string().min(1).max(140) }).optional() }).optional(),
  loc: locId.optional(),
  calendario: z.object({ dataInicial: date.optional() }).optional(),
  ativacao: ativacao.optional(),
});

/** SolicRecSolicitada (POST /solicrec). */
const solicRecSchema = z.object({
  idRec: z.string().regex(ID_REC_RE, '29 caracteres alfanuméricos'),
  calendario: z.object({ dataExpiracaoSolicitacao: z.iso.datetime({ offset: true }) }),
  destinatario: z
    .object({
      conta: z.string().min(1).max(20),
      ispbParticipante: z.string().regex(/^[0-9A-Z]{8}$/, '8 caracteres'),
      agencia: z.string().max(4).optional(),
      cpf: z.string().regex(CPF_RE, '11 dígitos').optional(),
      cnpj: z.string().regex(CNPJ_RE, '14 caracteres').optional(),
    })
    .refine((d) => (d.cpf === undefined) !== (d.cnpj === undefined), { message: 'exatamente um de cpf e cnpj' }),
});

/** CobRSolicitada (PUT /cobr/{txid}, POST /cobr). */
const cobrSchema = z.object({
  idRec: z.string().regex(ID_REC_RE, '29 caracteres alfanuméricos'),
  infoAdicional: z.string().max(140).optional(),
  calendario: z.object({ dataDeVencimento: date }),
  valor: z.object({ original: valor.refine((v) => Number(v) > 0, 'maior que zero') }),
  ajusteDiaUtil: z.boolean().optional(),
  // The document requires it: the account the cycle is credited to (one of the token's).
  recebedor: z.object({
    conta: z.string().min(1).max(20),
    tipoConta: z.enum(['CORRENTE', 'POUPANCA', 'PAGAMENTO']),
    agencia: z.string().max(4).optional(),
  }),
  devedor: z.record(z.string(), z.unknown()).optional(),
});

const cobrRevisionSchema = z.object({ status: z.literal('CANCELADA') });

/** Where the payer's PSP will fetch a location (as cobRoutes.ts). */
function locationHost(req: Request, configured: string | undefined): string {
  if (configured) return configured;
  const host = req.get('host') ?? '';
  return /^[A-Za-z0-9.:[\]-]{1,50}$/.test(host) ? host : 'localhost';
}

export function recRoutes(ctx: SandboxContext, options: { locationHost?: string }): Router {
  const router = Router();
  const store = ctx.state.pixAutomatico;

  // ------------------------------------------------------------------------------------ /locrec
  router.post('/locrec', requireScope('payloadlocationrec.write'), (req, res) => {
    const loc = createLocRec(ctx, requestAccount(res), locationHost(req, options.locationHost));
    res.status(201).json(locRecJson(loc));
  });

  router.get('/locrec/:id', requireScope('payloadlocationrec.read'), (req, res) => {
    const id = pathParam(req, 'id');
    const loc = /^\d{1,15}$/.test(id) ? findLocRec(ctx, requestAccount(res), Number(id)) : null;
    if (!loc) throw new PixProblem('PayloadLocationRecNaoEncontrado', `Location ${id.slice(0, 20)} não encontrada.`);
    res.json(locRecJson(loc));
  });

  router.get('/locrec', requireScope('payloadlocationrec.read'), (req, res) => {
    const query = new QueryReader(req.query, 'PayloadLocationRecConsultaInvalida');
    const inicio = query.instant('inicio', true);
    const fim = query.instant('fim', true);
    const idRecPresente = query.boolean('idRecPresente');
    const page = readPage(query);
    query.check(!inicio || !fim || inicio.at <= fim.at, 'fim', 'anterior a inicio');
    query.done();
    const account = requestAccount(res);
    const found = [...store.locrecs.values()].filter(
      (l) =>
        l.accountId === account.id &&
        Date.parse(l.criacao) >= inicio!.at &&
        Date.parse(l.criacao) <= fim!.at &&
        (idRecPresente === undefined || (l.idRec !== null) === idRecPresente),
    );
    const { page: locs, paginacao } = paginate(found, page);
    res.json({
      parametros: {
        inicio: inicio!.text,
        fim: fim!.text,
        ...(idRecPresente !== undefined ? { idRecPresente } : {}),
        paginacao,
      },
      loc: locs.map(locRecJson),
    });
  });

  // --------------------------------------------------------------------------------------- /rec
  router.post('/rec', requireScope('rec.write'), (req, res) => {
    const body = parseBody(recSchema, req.body, 'RecOperacaoInvalida', 'rec');
    const rec = createRec(ctx, requestAccount(res), {
      vinculo: body.vinculo,
      calendario: body.calendario,
      valor: body.valor,
      politicaRetentativa: body.politicaRetentativa,
      loc: body.loc,
      convenio: body.recebedor?.convenio,
      txid: body.ativacao?.dadosJornada?.txid,
    });
    res.status(201).json(recJson(ctx, rec));
  });

  router.get('/rec/:idRec', requireScope('rec.read'), (req, res) => {
    const account = requestAccount(res);
    const rec = findRec(ctx, account, pathParam(req, 'idRec'));
    const query = new QueryReader(req.query, 'RecConsultaInvalida');
    const txid = query.string('txid', TXID_RE, 'um txid de 26 a 35 caracteres');
    query.done();
    let cob: { location: string } | null = null;
    if (txid !== undefined) {
      const named = rec.ativacao.dadosJornada?.txid;
      const found = findAccountCob(ctx, account, txid);
      if (!found || (named !== undefined && named !== txid))
        throw new PixProblem('RecConsultaInvalida', 'O parâmetro txid não corresponde à cobrança da jornada 3.', [
          {
            propriedade: 'txid',
            razao: found
              ? `A recorrência nomeia a cobrança ${named} em ativacao.dadosJornada.txid.`
              : 'Nenhuma cobrança imediata com este txid.',
          },
        ]);
      cob = { location: found.cob.loc.location };
    }
    const qr = dadosQR(ctx, rec, cob);
    res.json({ ...recJson(ctx, rec, { solicitacoes: true }), ...(qr ? { dadosQR: qr } : {}) });
  });

  router.patch('/rec/:idRec', requireScope('rec.write'), (req, res) => {
    const body = parseBody(recRevisionSchema, req.body, 'RecOperacaoInvalida', 'rec');
    const rec = reviseRec(ctx, requestAccount(res), pathParam(req, 'idRec'), {
      status: body.status,
      devedorNome: body.vinculo?.devedor?.nome,
      loc: body.loc,
      dataInicial: body.calendario?.dataInicial,
      txid: body.ativacao?.dadosJornada?.txid,
    });
    res.json(recJson(ctx, rec));
  });

  router.get('/rec', requireScope('rec.read'), (req, res) => {
    const filters = readListFilters(new QueryReader(req.query, 'RecConsultaInvalida'), '14 caracteres');
    const found = listRecs(ctx, requestAccount(res)).filter(
      (rec) =>
        inWindowForDebtor(filters, Date.parse(rec.atualizacao[0].data), rec.vinculo.devedor) &&
        (filters.locationPresente === undefined || (rec.locId !== null) === filters.locationPresente) &&
        (filters.status === undefined || rec.status === filters.status),
    );
    const { items: recs, parametros } = listPage(filters, found);
    res.json({ parametros, recs: recs.map((rec) => recJson(ctx, rec, { solicitacoes: true })) });
  });

  // ---------------------------------------------------------------------------------- /solicrec
  router.post('/solicrec', requireScope('solicrec.write'), (req, res) => {
    const body = parseBody(solicRecSchema, req.body, 'SolicRecOperacaoInvalida', 'solicrec');
    const solic = createSolicRec(ctx, requestAccount(res), {
      idRec: body.idRec,
      dataExpiracaoSolicitacao: body.calendario.dataExpiracaoSolicitacao,
      destinatario: body.destinatario,
    });
    res.status(201).json(solicRecJson(ctx, solic));
  });

  router.get('/solicrec/:idSolicRec', requireScope('solicrec.read'), (req, res) => {
    res.json(solicRecJson(ctx, findSolicRec(ctx, requestAccount(res), pathParam(req, 'idSolicRec'))));
  });

  router.patch('/solicrec/:idSolicRec', requireScope('solicrec.write'), (req, res) => {
    parseBody(z.object({ status: z.literal('CANCELADA') }), req.body, 'SolicRecOperacaoInvalida', 'solicrec');
    res.json(solicRecJson(ctx, cancelSolicRec(ctx, requestAccount(res), pathParam(req, 'idSolicRec'))));
  });

  // -------------------------------------------------------------------------------------- /cobr
  const createCobR = (req: Request, account: ReturnType<typeof requestAccount>, txid: string) => {
    const body = parseBody(cobrSchema, req.body, 'CobROperacaoInvalida', 'cobr');
    return putCobR(ctx, account, txid, {
      idRec: body.idRec,
      dataDeVencimento: body.calendario.dataDeVencimento,
      original: body.valor.original,
      ajusteDiaUtil: body.ajusteDiaUtil,
      infoAdicional: body.infoAdicional,
      recebedor: body.recebedor,
      devedor: body.devedor,
    });
  };

  router.put('/cobr/:txid', requireScope('cobr.write'), (req, res) => {
    const txid = pathParam(req, 'txid');
    if (!TXID_RE.test(txid))
      throw new PixProblem('CobROperacaoInvalida', 'O txid não respeita o schema.', [
        { propriedade: 'txid', razao: 'O txid tem de 26 a 35 caracteres alfanuméricos.', valor: txid.slice(0, 40) },
      ]);
    res.status(201).json(cobrJson(ctx, createCobR(req, requestAccount(res), txid)));
  });

  router.post('/cobr', requireScope('cobr.write'), (req, res) => {
    res.status(201).json(cobrJson(ctx, createCobR(req, requestAccount(res), generateTxid(32))));
  });

  router.patch('/cobr/:txid', requireScope('cobr.write'), (req, res) => {
    const account = requestAccount(res);
    const txid = pathParam(req, 'txid');
    findCobR(ctx, account, txid);
    parseBody(cobrRevisionSchema, req.body, 'CobROperacaoInvalida', 'cobr');
    res.json(cobrJson(ctx, cancelCobR(ctx, account, txid)));
  });

  router.get('/cobr/:txid', requireScope('cobr.read'), (req, res) => {
    res.json(cobrJson(ctx, findCobR(ctx, requestAccount(res), pathParam(req, 'txid'))));
  });

  router.post('/cobr/:txid/retentativa/:data', requireScope('cobr.write'), (req, res) => {
    const account = requestAccount(res);
    const txid = pathParam(req, 'txid');
    findCobR(ctx, account, txid);
    const data = pathParam(req, 'data');
    const parsed = date.safeParse(data);
    if (!parsed.success)
      throw new PixProblem('CobROperacaoInvalida', 'O parâmetro data não respeita o schema.', [
        { propriedade: 'data', razao: 'Uma data YYYY-MM-DD.', valor: data.slice(0, 20) },
      ]);
    res.status(201).json(cobrJson(ctx, retryCobR(ctx, account, txid, data)));
  });

  router.get('/cobr', requireScope('cobr.read'), (req, res) => {
    const query = new QueryReader(req.query, 'CobRConsultaInvalida');
    const inicio = query.instant('inicio', true);
    const fim = query.instant('fim', true);
    const idRec = query.string('idRec', ID_REC_RE, '29 caracteres alfanuméricos');
    const cpf = query.string('cpf', CPF_RE, '11 dígitos');
    const cnpj = query.string('cnpj', CNPJ_RE, '14 caracteres');
    const status = query.string('status');
    const page = readPage(query);
    query.check(!inicio || !fim || inicio.at <= fim.at, 'fim', 'anterior a inicio');
    query.check(cpf === undefined || cnpj === undefined, 'cpf', 'cpf e cnpj não podem ser usados juntos');
    query.done();
    const found = listCobRs(ctx, requestAccount(res)).filter((c) => {
      const created = Date.parse(c.atualizacao[0].data);
      const d = ctx.state.pixAutomatico.recs.get(c.idRec)!.vinculo.devedor;
      return (
        created >= inicio!.at &&
        created <= fim!.at &&
        (idRec === undefined || c.idRec === idRec) &&
        (cpf === undefined || ('cpf' in d && d.cpf === cpf)) &&
        (cnpj === undefined || ('cnpj' in d && d.cnpj === cnpj)) &&
        (status === undefined || c.status === status)
      );
    });
    const { page: cobrs, paginacao } = paginate(found, page);
    res.json({
      parametros: {
        inicio: inicio!.text,
        fim: fim!.text,
        ...(idRec !== undefined ? { idRec } : {}),
        ...(cpf !== undefined ? { cpf } : {}),
        ...(cnpj !== undefined ? { cnpj } : {}),
        ...(status !== undefined ? { status } : {}),
        paginacao,
      },
      cobsr: cobrs.map((c) => cobrJson(ctx, c)),
    });
  });

  // ----------------------------------------------------------------- /webhookrec, /webhookcobr
  for (const kind of ['rec', 'cobr'] as const) {
    const hooks = kind === 'rec' ? store.webhookRec : store.webhookCobR;
    const problem = kind === 'rec' ? 'WebhookRecOperacaoInvalida' : 'WebhookCobROperacaoInvalida';
    const path = `/webhook${kind}`;
    const scope = (op: 'read' | 'write') => requireScope(`webhook${kind}.${op}`);
    router.put(path, scope('write'), (req, res) => {
      const { webhookUrl } = parseBody(webhookSchema, req.body, problem, 'webhook');
      const account = requestAccount(res);
      const known = hooks.get(account.id);
      if (known?.webhookUrl !== webhookUrl) hooks.set(account.id, { webhookUrl, criacao: ctx.now().toISOString() });
      // The URL may carry the client's secret path segment: the log names the account only.
      ctx.logger.info({ account: account.id, kind }, 'pix automatico webhook registered');
      res.status(200).send();
    });
    const registered = (res: Parameters<typeof requestAccount>[0]): WebhookRecRecord => {
      const hook = hooks.get(requestAccount(res).id);
      if (!hook) throw new PixProblem('NaoEncontrado', `Nenhum webhook${kind} está estabelecido.`);
      return hook;
    };
    router.get(path, scope('read'), (_req, res) => {
      res.json(registered(res));
    });
    router.delete(path, scope('write'), (_req, res) => {
      registered(res);
      hooks.delete(requestAccount(res).id);
      res.status(204).send();
    });
  }

  return router;
}
