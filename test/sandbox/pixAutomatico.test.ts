/**
 * Pix Automático on the sandbox over real HTTP: journeys 1, 2 and 3 approved by the simulated payer
 * (and refused), the recurrence's state machine, cobrs paid, rejected, retried and expired, the
 * notifications webhookrec and webhookcobr POST to a local receiver, and a paid cobr as a received
 * Pix (GET /pix, the account's balance). Every request the test sends is checked against the BCB
 * document (PixApiRequestValidator), and the notifications against its schemas.
 */
import type { ObservedApiRequest } from '../../sandbox/pixApi';
import { PixApiRequestValidator } from '../support/pixApiRequestValidator';
import { pixApiSchemaValidator, type SchemaValidator } from '../support/pixApiSpec';
import { startReceiver, type Receiver } from '../support/receiver';
import { waitFor } from './harness';
import { cobBody, newTxid, requestToken, startPixApiSandbox, type PixApiHarness } from './pixApiHarness';

const ERROR = 'https://pix.bcb.gov.br/api/v2/error/';
const DAY = 86_400_000;
/** The default account's, where each cycle is credited. */
const RECEBEDOR = { conta: '1000001', tipoConta: 'CORRENTE', agencia: '0001' };
/**
 * The sandbox's clock starts at noon UTC today and runs with real time, so the day never changes
 * under a test (the rules compare dates: a run crossing midnight would see "today" move); the
 * dates below are days from that clock.
 */
const startedAt = Date.now();
const noonToday = new Date(startedAt).setUTCHours(12, 0, 0, 0);
const sandboxNow = () => new Date(noonToday + (Date.now() - startedAt));
const date = (days: number) => new Date(sandboxNow().getTime() + days * DAY).toISOString().slice(0, 10);

let h: PixApiHarness;
let receiver: Receiver;
let conforms: SchemaValidator;
let validator: PixApiRequestValidator;
const observed: ObservedApiRequest[] = [];

beforeAll(async () => {
  [h, receiver, conforms, validator] = await Promise.all([
    startPixApiSandbox({ now: sandboxNow, observeApiRequest: (req) => observed.push(req) }),
    startReceiver(),
    pixApiSchemaValidator([
      'RecNotification',
      'CobRNotification',
      'CobRGerada',
      'CobRCompleta',
      'Problema',
      'RecGerada',
      'RecCompleta',
      'RecsConsultadas',
      'SolicRecCompleta',
      'PayloadLocationRecGerada',
      'PayloadLocationRecCompleta',
      'PayloadLocationRecConsultadas',
      'CobsRConsultadas',
    ]),
    PixApiRequestValidator.create(),
  ]);
  expect((await h.pix('PUT', '/webhookrec', { webhookUrl: `${receiver.url}/hooks/s3cret` })).status).toBe(200);
  expect((await h.pix('PUT', '/webhookcobr', { webhookUrl: `${receiver.url}/hooks/s3cret` })).status).toBe(200);
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

afterAll(() => {
  // Every request this file sent, as the sandbox received it, follows the BCB document, but the
  // one the test breaks the schema with on purpose (webhookUrl "not a url").
  const audited = observed.filter((req) => !req.body?.includes('"not a url"'));
  expect(audited.flatMap((req) => validator.violationsOf(req))).toEqual([]);
});

function recBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    vinculo: {
      objeto: 'Curso de violão: assinatura',
      contrato: 'enr_123',
      devedor: { cpf: '52998224725', nome: 'Joana Pagadora' },
    },
    calendario: { dataInicial: date(1), periodicidade: 'MENSAL' },
    valor: { valorRec: '49.90' },
    politicaRetentativa: 'PERMITE_3R_7D',
    ...overrides,
  };
}

async function createRec(overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await h.pix('POST', '/rec', recBody(overrides));
  expect(res.status).toBe(201);
  return res.json;
}

/** The notifications delivered to `<url>/rec` (or /cobr) for one idRec or txid, parsed. */
function notified(kind: 'rec' | 'cobr', id: string): any[] {
  return receiver.received
    .filter((r) => r.path === `/hooks/s3cret/${kind}`)
    .flatMap((r) => JSON.parse(r.rawBody)[kind === 'rec' ? 'recs' : 'cobsr'])
    .filter((n: any) => (kind === 'rec' ? n.idRec : n.txid) === id);
}

async function approvedRec(overrides: Record<string, unknown> = {}): Promise<string> {
  const loc = await h.pix('POST', '/locrec');
  const rec = await createRec({ loc: loc.json.id, ...overrides });
  expect(
    (await h.call('POST', `/sandbox/pix-automatico/recs/${rec.idRec}/approve`, { jornada: 'JORNADA_2' })).status,
  ).toBe(200);
  return rec.idRec;
}

async function cobr(idRec: string, dueInDays = 1, valor = '49.90'): Promise<any> {
  const txid = newTxid();
  const res = await h.pix('PUT', `/cobr/${txid}`, {
    idRec,
    calendario: { dataDeVencimento: date(dueInDays) },
    valor: { original: valor },
    ajusteDiaUtil: true,
    recebedor: RECEBEDOR,
  });
  expect(res.status).toBe(201);
  return res.json;
}

describe('POST /rec and GET /rec/{idRec}', () => {
  it('creates a CRIADA recurrence with an idRec of 29 characters (R, R for retries allowed, ISPB, date)', async () => {
    const rec = await createRec();
    expect(rec.idRec).toMatch(new RegExp(`^RR99999999${date(0).replace(/-/g, '')}[a-zA-Z0-9]{11}$`));
    expect(rec).toMatchObject({
      status: 'CRIADA',
      politicaRetentativa: 'PERMITE_3R_7D',
      valor: { valorRec: '49.90' },
      recebedor: { cnpj: '11222333000181' },
      atualizacao: [{ status: 'CRIADA', data: expect.any(String) }],
      ativacao: { tipoJornada: 'AGUARDANDO_DEFINICAO' },
    });
    expect(conforms('RecGerada', rec)).toEqual([]);
    const read = await h.pix('GET', `/rec/${rec.idRec}`);
    expect(read.status).toBe(200);
    expect(conforms('RecCompleta', read.json)).toEqual([]);
    expect(read.json.idRec).toBe(rec.idRec);
    expect((await createRec({ politicaRetentativa: 'NAO_PERMITE' })).idRec).toMatch(/^RN/);
  });

  it('refuses valorRec with valorMinimoRecebedor, a past dataInicial, a dataFinal before it, and an unknown loc (RecOperacaoInvalida)', async () => {
    for (const body of [
      recBody({ valor: { valorRec: '10.00', valorMinimoRecebedor: '5.00' } }),
      recBody({ calendario: { dataInicial: date(-2), periodicidade: 'MENSAL' } }),
      recBody({ calendario: { dataInicial: date(5), dataFinal: date(2), periodicidade: 'MENSAL' } }),
      recBody({ loc: 999_999 }),
    ]) {
      const res = await h.pix('POST', '/rec', body);
      expect([res.status, res.json.type]).toEqual([400, `${ERROR}RecOperacaoInvalida`]);
      expect(conforms('Problema', res.json)).toEqual([]);
    }
    const missing = await h.pix('GET', '/rec/RR9999999920250101aaaaaaaaaaa');
    expect([missing.status, missing.json.type]).toEqual([404, `${ERROR}RecNaoEncontrada`]);
  });

  it('lists the account’s recurrences with paginacao', async () => {
    const rec = await createRec();
    const inicio = new Date(sandboxNow().getTime() - 60_000).toISOString();
    const fim = new Date(sandboxNow().getTime() + 60_000).toISOString();
    const list = await h.pix('GET', `/rec?inicio=${inicio}&fim=${fim}&status=CRIADA&paginacao.itensPorPagina=1000`);
    expect(list.status).toBe(200);
    expect(list.json.recs.map((r: any) => r.idRec)).toContain(rec.idRec);
    expect(conforms('RecsConsultadas', list.json)).toEqual([]);
    expect(list.json.parametros.paginacao).toMatchObject({ paginaAtual: 0, itensPorPagina: 1000 });
    const bad = await h.pix('GET', `/rec?inicio=${fim}&fim=${inicio}`);
    expect([bad.status, bad.json.type]).toEqual([400, `${ERROR}RecConsultaInvalida`]);
  });
});

describe('journey 1: solicrec', () => {
  it('is sent and received at once; the payer accepts it: ACEITA, the rec APROVADA by JORNADA_1, notified', async () => {
    const rec = await createRec();
    const solic = await h.pix('POST', '/solicrec', {
      idRec: rec.idRec,
      calendario: { dataExpiracaoSolicitacao: new Date(sandboxNow().getTime() + 7 * DAY).toISOString() },
      destinatario: { conta: '1234567', ispbParticipante: '12345678', agencia: '0001', cpf: '52998224725' },
    });
    expect(solic.status).toBe(201);
    expect(solic.json.idSolicRec).toMatch(/^SC99999999\d{8}[a-zA-Z0-9]{11}$/);
    expect(solic.json.atualizacao.map((a: any) => a.status)).toEqual(['CRIADA', 'ENVIADA', 'RECEBIDA']);
    expect(conforms('SolicRecCompleta', solic.json)).toEqual([]);
    // One live request per recurrence.
    const second = await h.pix('POST', '/solicrec', {
      idRec: rec.idRec,
      calendario: { dataExpiracaoSolicitacao: new Date(sandboxNow().getTime() + 7 * DAY).toISOString() },
      destinatario: { conta: '1234567', ispbParticipante: '12345678', cpf: '52998224725' },
    });
    expect([second.status, second.json.type]).toEqual([400, `${ERROR}SolicRecOperacaoInvalida`]);

    const approved = await h.call('POST', `/sandbox/pix-automatico/recs/${rec.idRec}/approve`, {
      jornada: 'JORNADA_1',
    });
    expect(approved.json).toEqual({ idRec: rec.idRec, status: 'APROVADA' });
    expect((await h.pix('GET', `/solicrec/${solic.json.idSolicRec}`)).json.status).toBe('ACEITA');
    const read = await h.pix('GET', `/rec/${rec.idRec}`);
    expect(read.json).toMatchObject({ status: 'APROVADA', ativacao: { tipoJornada: 'JORNADA_1' } });
    expect(read.json.solicitacao).toHaveLength(1);
    const note = await waitFor(() => notified('rec', rec.idRec).find((n) => n.status === 'APROVADA'));
    expect(conforms('RecNotification', note)).toEqual([]);
    // A cancelled request cannot be cancelled again; an accepted one neither.
    const cancel = await h.pix('PATCH', `/solicrec/${solic.json.idSolicRec}`, { status: 'CANCELADA' });
    expect([cancel.status, cancel.json.type]).toEqual([400, `${ERROR}SolicRecOperacaoInvalida`]);
  });

  it('the payer refuses: solicrec REJEITADA, rec REJEITADA (AP13); the receiver can cancel a live request', async () => {
    const rec = await createRec();
    const body = (idRec: string) => ({
      idRec,
      calendario: { dataExpiracaoSolicitacao: new Date(sandboxNow().getTime() + DAY).toISOString() },
      destinatario: { conta: '1', ispbParticipante: '12345678', cnpj: '11222333000181' },
    });
    const first = await h.pix('POST', '/solicrec', body(rec.idRec));
    const cancelled = await h.pix('PATCH', `/solicrec/${first.json.idSolicRec}`, { status: 'CANCELADA' });
    expect([cancelled.status, cancelled.json.status]).toEqual([200, 'CANCELADA']);
    const solic = await h.pix('POST', '/solicrec', body(rec.idRec));
    expect(solic.status).toBe(201);
    expect((await h.call('POST', `/sandbox/pix-automatico/recs/${rec.idRec}/refuse`)).json.status).toBe('REJEITADA');
    expect((await h.pix('GET', `/solicrec/${solic.json.idSolicRec}`)).json.status).toBe('REJEITADA');
    const read = await h.pix('GET', `/rec/${rec.idRec}`);
    expect(read.json).toMatchObject({ status: 'REJEITADA', encerramento: { rejeicao: { codigo: 'AP13' } } });
    const note = await waitFor(() => notified('rec', rec.idRec).find((n) => n.status === 'REJEITADA'));
    expect(conforms('RecNotification', note)).toEqual([]);
    const missing = await h.pix('GET', '/solicrec/SC9999999920250101aaaaaaaaaaa');
    expect([missing.status, missing.json.type]).toEqual([404, `${ERROR}SolicRecNaoEncontrada`]);
  });
});

describe('journey 2: locrec and the QR that only authorises', () => {
  it('a location serves the rec; GET /rec/{idRec} gives dadosQR JORNADA_2; the payer authorises it', async () => {
    const loc = await h.pix('POST', '/locrec');
    expect(loc.status).toBe(201);
    expect(loc.json).toMatchObject({ id: expect.any(Number), location: expect.stringContaining('/qr/v2/rec/') });
    expect(conforms('PayloadLocationRecGerada', loc.json)).toEqual([]);
    const rec = await createRec({ loc: loc.json.id });
    expect(rec.loc).toMatchObject({ id: loc.json.id, idRec: rec.idRec });
    expect((await h.pix('GET', `/locrec/${loc.json.id}`)).json.idRec).toBe(rec.idRec);
    // A location serves one recurrence.
    const taken = await h.pix('POST', '/rec', recBody({ loc: loc.json.id }));
    expect([taken.status, taken.json.type]).toEqual([400, `${ERROR}RecOperacaoInvalida`]);

    const read = await h.pix('GET', `/rec/${rec.idRec}`);
    expect(read.json.dadosQR.jornada).toBe('JORNADA_2');
    expect(conforms('RecCompleta', read.json)).toEqual([]);
    expect(conforms('PayloadLocationRecCompleta', (await h.pix('GET', `/locrec/${loc.json.id}`)).json)).toEqual([]);
    expect(read.json.dadosQR.pixCopiaECola).toContain(loc.json.location);
    // The payer's PSP reads the location: a signed RecPayload.
    const payload = await fetch(`${h.url}/qr/v2/rec/${loc.json.location.split('/').pop()}`);
    expect([payload.status, payload.headers.get('content-type')]).toEqual([200, 'application/jose; charset=utf-8']);

    await h.call('POST', `/sandbox/pix-automatico/recs/${rec.idRec}/approve`, { jornada: 'JORNADA_2' });
    expect((await h.pix('GET', `/rec/${rec.idRec}`)).json).toMatchObject({
      status: 'APROVADA',
      ativacao: { tipoJornada: 'JORNADA_2' },
    });
    // Approved: it cannot be approved again, nor its loc changed.
    const again = await h.call('POST', `/sandbox/pix-automatico/recs/${rec.idRec}/approve`, { jornada: 'JORNADA_2' });
    expect(again.status).toBe(409);
    const other = await h.pix('POST', '/locrec');
    const relocate = await h.pix('PATCH', `/rec/${rec.idRec}`, { loc: other.json.id });
    expect([relocate.status, relocate.json.type]).toEqual([400, `${ERROR}RecOperacaoInvalida`]);
    const missing = await h.pix('GET', '/locrec/999999');
    expect([missing.status, missing.json.type]).toEqual([404, `${ERROR}PayloadLocationRecNaoEncontrado`]);
  });
});

describe('journey 3: the composite QR', () => {
  it('GET /rec/{idRec}?txid= gives JORNADA_3; paying it pays the cob and approves the rec', async () => {
    const txid = newTxid();
    expect((await h.pix('PUT', `/cob/${txid}`, cobBody({ valor: { original: '49.90' } }))).status).toBe(201);
    const loc = await h.pix('POST', '/locrec');
    const rec = await createRec({ loc: loc.json.id, ativacao: { dadosJornada: { txid } } });
    const qr = await h.pix('GET', `/rec/${rec.idRec}?txid=${txid}`);
    expect(qr.json.dadosQR.jornada).toBe('JORNADA_3');
    const other = newTxid();
    await h.pix('PUT', `/cob/${other}`, cobBody());
    const wrong = await h.pix('GET', `/rec/${rec.idRec}?txid=${other}`);
    expect([wrong.status, wrong.json.type]).toEqual([400, `${ERROR}RecConsultaInvalida`]);

    const paid = await h.call('POST', `/sandbox/pix-automatico/recs/${rec.idRec}/pay-composite`);
    expect(paid.status).toBe(200);
    expect((await h.pix('GET', `/cob/${txid}`)).json.status).toBe('CONCLUIDA');
    expect((await h.pix('GET', `/rec/${rec.idRec}`)).json.ativacao).toEqual({
      tipoJornada: 'JORNADA_3',
      dadosJornada: { txid },
    });
  });
});

describe('cancellation', () => {
  it('by the receiver (PATCH, SLCR) and by the payer (control, SLDB); a cancelled rec cannot change', async () => {
    const idRec = await approvedRec();
    const cancelled = await h.pix('PATCH', `/rec/${idRec}`, { status: 'CANCELADA' });
    expect(cancelled.json).toMatchObject({
      status: 'CANCELADA',
      encerramento: { cancelamento: { solicitante: 'USUARIO_RECEBEDOR', codigo: 'SLCR' } },
    });
    const again = await h.pix('PATCH', `/rec/${idRec}`, { status: 'CANCELADA' });
    expect([again.status, again.json.type]).toEqual([400, `${ERROR}RecOperacaoInvalida`]);

    const byPayer = await approvedRec();
    expect((await h.call('POST', `/sandbox/pix-automatico/recs/${byPayer}/cancel`)).json.status).toBe('CANCELADA');
    const note = await waitFor(() => notified('rec', byPayer).find((n) => n.status === 'CANCELADA'));
    expect(note.encerramento.cancelamento).toMatchObject({ solicitante: 'USUARIO_PAGADOR', codigo: 'SLDB' });
    expect(conforms('RecNotification', note)).toEqual([]);
    // No cobr on a cancelled recurrence.
    const refused = await h.pix('POST', '/cobr', {
      idRec: byPayer,
      calendario: { dataDeVencimento: date(2) },
      valor: { original: '49.90' },
      ajusteDiaUtil: true,
      recebedor: RECEBEDOR,
    });
    expect([refused.status, refused.json.type]).toEqual([400, `${ERROR}CobROperacaoInvalida`]);
  });
});

describe('cobr', () => {
  it('is ATIVA with its first attempt AGENDADA on the due date; paid: CONCLUIDA, a received Pix on the account, notified', async () => {
    const idRec = await approvedRec();
    const before = (await h.call('GET', '/sandbox/accounts/default')).json;
    const created = await cobr(idRec);
    expect(conforms('CobRGerada', created)).toEqual([]);
    expect(created).toMatchObject({
      idRec,
      status: 'ATIVA',
      valor: { original: '49.90' },
      tentativas: [{ dataLiquidacao: date(1), tipo: 'AGND', status: 'AGENDADA' }],
    });
    // One live cobr per cycle.
    const twin = await h.pix('POST', '/cobr', {
      idRec,
      calendario: { dataDeVencimento: date(3) },
      valor: { original: '49.90' },
      ajusteDiaUtil: true,
      recebedor: RECEBEDOR,
    });
    expect([twin.status, twin.json.type]).toEqual([400, `${ERROR}CobROperacaoInvalida`]);
    // The fixed amount of the recurrence.
    const other = await h.pix('PUT', `/cobr/${newTxid()}`, {
      idRec,
      calendario: { dataDeVencimento: date(40) },
      valor: { original: '10.00' },
      ajusteDiaUtil: true,
      recebedor: RECEBEDOR,
    });
    expect([other.status, other.json.type]).toEqual([400, `${ERROR}CobROperacaoInvalida`]);
    // The account credited must be the token's.
    const foreign = await h.pix('PUT', `/cobr/${newTxid()}`, {
      idRec,
      calendario: { dataDeVencimento: date(40) },
      valor: { original: '49.90' },
      ajusteDiaUtil: true,
      recebedor: { ...RECEBEDOR, conta: '7654321' },
    });
    expect([foreign.status, foreign.json.violacoes[0].propriedade]).toEqual([400, 'cobr.recebedor.conta']);

    const paid = await h.call('POST', `/sandbox/pix-automatico/cobrs/${created.txid}/pay`);
    expect(paid.json.status).toBe('CONCLUIDA');
    const read = await h.pix('GET', `/cobr/${created.txid}`);
    expect(conforms('CobRCompleta', read.json)).toEqual([]);
    expect(read.json.tentativas[0].status).toBe('PAGA');
    // CobRCompleta's pix: the Pix received on it, which is what a receiver credits on.
    expect(read.json.pix).toEqual([
      { endToEndId: paid.json.endToEndId, txid: created.txid, valor: '49.90', horario: expect.any(String) },
    ]);
    const pix = await h.pix('GET', `/pix/${paid.json.endToEndId}`);
    expect(pix.json).toMatchObject({ txid: created.txid, valor: '49.90' });
    const after = (await h.call('GET', '/sandbox/accounts/default')).json;
    expect(after.balanceCents - before.balanceCents).toBe(4990);
    const note = await waitFor(() => notified('cobr', created.txid).find((n) => n.status === 'CONCLUIDA'));
    expect(conforms('CobRNotification', note)).toEqual([]);
    expect(note.pix).toEqual(read.json.pix);
    // The next cycle may have its cobr.
    expect((await cobr(idRec, 33)).status).toBe('ATIVA');
  });

  it('is cancelled by the receiver before the first attempt’s day, not on it', async () => {
    const idRec = await approvedRec({ calendario: { dataInicial: date(0), periodicidade: 'SEMANAL' } });
    const later = await cobr(idRec, 8);
    const cancelled = await h.pix('PATCH', `/cobr/${later.txid}`, { status: 'CANCELADA' });
    expect([cancelled.status, cancelled.json.status]).toEqual([200, 'CANCELADA']);
    const due = await cobr(idRec, 0);
    const refused = await h.pix('PATCH', `/cobr/${due.txid}`, { status: 'CANCELADA' });
    expect([refused.status, refused.json.type]).toEqual([400, `${ERROR}CobROperacaoInvalida`]);
    const missing = await h.pix('GET', `/cobr/${newTxid()}`);
    expect([missing.status, missing.json.type]).toEqual([404, `${ERROR}CobRNaoEncontrado`]);
  });

  it('a rejected attempt (AM02: one attempt only) is retried under PERMITE_3R_7D: future, after the due date, one at a time, at most 3 in 7 days', async () => {
    const idRec = await approvedRec();
    const c = await cobr(idRec, 1);
    const retry = (data: string) => h.pix('POST', `/cobr/${c.txid}/retentativa/${data}`);
    // Refused while the first attempt is scheduled.
    const pending = await retry(date(2));
    expect([pending.status, pending.json.type]).toEqual([400, `${ERROR}CobROperacaoInvalida`]);

    const rejected = await h.call('POST', `/sandbox/pix-automatico/cobrs/${c.txid}/reject`, { codigo: 'AM02' });
    expect(rejected.json.status).toBe('ATIVA');
    for (const data of [date(0), date(1), date(9)]) {
      const res = await retry(data);
      expect([data, res.status]).toEqual([data, 400]);
    }
    for (const [i, days] of [2, 3, 4].entries()) {
      const res = await retry(date(days));
      expect(res.status).toBe(201);
      expect(res.json.tentativas[i + 1]).toMatchObject({
        tipo: 'RIFL',
        status: 'AGENDADA',
        dataLiquidacao: date(days),
      });
      // One at a time.
      expect((await retry(date(days + 1))).status).toBe(400);
      await h.call('POST', `/sandbox/pix-automatico/cobrs/${c.txid}/reject`, { codigo: 'AM02' });
    }
    const fourth = await retry(date(6));
    expect([fourth.status, fourth.json.detail]).toEqual([400, 'A retentativa não pode ser solicitada.']);
    const expired = await h.call('POST', `/sandbox/pix-automatico/cobrs/${c.txid}/expire`);
    expect(expired.json.status).toBe('EXPIRADA');
    const note = await waitFor(() => notified('cobr', c.txid).find((n) => n.status === 'EXPIRADA'));
    expect(note.tentativas.map((t: any) => t.status)).toEqual(['REJEITADA', 'REJEITADA', 'REJEITADA', 'REJEITADA']);
    expect(conforms('CobRNotification', note)).toEqual([]);
  });

  it('a retry healed by a paid attempt; a final code (MSUC) rejects the whole cobr; NAO_PERMITE refuses retries', async () => {
    const idRec = await approvedRec();
    const c = await cobr(idRec, 1);
    await h.call('POST', `/sandbox/pix-automatico/cobrs/${c.txid}/reject`, { codigo: 'AM02' });
    expect((await h.pix('POST', `/cobr/${c.txid}/retentativa/${date(3)}`)).status).toBe(201);
    expect((await h.call('POST', `/sandbox/pix-automatico/cobrs/${c.txid}/pay`)).json.status).toBe('CONCLUIDA');

    const next = await cobr(idRec, 33);
    const final = await h.call('POST', `/sandbox/pix-automatico/cobrs/${next.txid}/reject`, { codigo: 'MSUC' });
    expect(final.json.status).toBe('REJEITADA');
    const read = await h.pix('GET', `/cobr/${next.txid}`);
    expect(read.json.encerramento).toEqual({ rejeicao: { codigo: 'MSUC', descricao: expect.any(String) } });
    const note = await waitFor(() => notified('cobr', next.txid).find((n) => n.status === 'REJEITADA'));
    expect(conforms('CobRNotification', note)).toEqual([]);
    // A rejected cobr frees its cycle.
    expect((await cobr(idRec, 34)).status).toBe('ATIVA');

    const strict = await approvedRec({ politicaRetentativa: 'NAO_PERMITE' });
    const s = await cobr(strict, 1);
    await h.call('POST', `/sandbox/pix-automatico/cobrs/${s.txid}/reject`, { codigo: 'AM02' });
    const refused = await h.pix('POST', `/cobr/${s.txid}/retentativa/${date(2)}`);
    expect([refused.status, refused.json.detail]).toEqual([
      400,
      'A política configurada na recorrência não permite retentativa de cobrança.',
    ]);
    const unknownCode = await h.call('POST', `/sandbox/pix-automatico/cobrs/${s.txid}/reject`, { codigo: 'XXXX' });
    expect(unknownCode.status).toBe(400);
  });

  it('lists the account’s cobrs by idRec', async () => {
    const idRec = await approvedRec();
    const c = await cobr(idRec, 2);
    const inicio = new Date(sandboxNow().getTime() - 60_000).toISOString();
    const fim = new Date(sandboxNow().getTime() + 60_000).toISOString();
    const list = await h.pix('GET', `/cobr?inicio=${inicio}&fim=${fim}&idRec=${idRec}`);
    expect(list.status).toBe(200);
    expect(list.json.cobsr.map((x: any) => x.txid)).toEqual([c.txid]);
    expect(conforms('CobsRConsultadas', list.json)).toEqual([]);
    expect(list.json.parametros).toMatchObject({ idRec, paginacao: { quantidadeTotalDeItens: 1 } });
  });
});

describe('webhooks and scopes', () => {
  it('GET and DELETE /webhookrec; a token without rec.write is refused (AcessoNegado); a refused notification is retried until delivered', async () => {
    expect((await h.pix('GET', '/webhookrec')).json.webhookUrl).toBe(`${receiver.url}/hooks/s3cret`);
    expect((await h.pix('GET', '/webhookcobr')).json.webhookUrl).toBe(`${receiver.url}/hooks/s3cret`);
    const bad = await h.pix('PUT', '/webhookrec', { webhookUrl: 'not a url' });
    expect([bad.status, bad.json.type]).toEqual([400, `${ERROR}WebhookRecOperacaoInvalida`]);
    const narrow = await requestToken(h.url, { body: 'grant_type=client_credentials&scope=rec.read' });
    expect(narrow.status).toBe(200);
    const denied = await h.pix('POST', '/rec', recBody(), narrow.json.access_token);
    expect([denied.status, denied.json.type]).toEqual([403, `${ERROR}AcessoNegado`]);
    // A notification refused by the receiver is retried by the callback dispatcher until delivered.
    receiver.status = 503;
    const rec = await createRec();
    expect((await h.call('POST', `/sandbox/pix-automatico/recs/${rec.idRec}/expire`)).json.status).toBe('EXPIRADA');
    await waitFor(() => notified('rec', rec.idRec).length >= 2);
    receiver.status = 200;
    const attempts = await waitFor(() => {
      const log = h.sandbox.state.callbacks.filter((a) => a.chargeId === rec.idRec);
      return log.some((a) => a.delivered) && log;
    });
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    const note = notified('rec', rec.idRec).at(-1);
    expect(note).toMatchObject({ idRec: rec.idRec, status: 'EXPIRADA' });
    expect(conforms('RecNotification', note)).toEqual([]);
    // Last: the other tests' notifications are in by now.
    expect((await h.pix('DELETE', '/webhookcobr')).status).toBe(204);
    expect((await h.pix('GET', '/webhookcobr')).status).toBe(404);
  });
});
