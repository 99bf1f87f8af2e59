/**
 * MED at Efí's routes over real HTTP: the sandbox's infractions (opened by the existing control
 * route) listed by GET /v2/gn/infracoes in Efí's shape over [inicio, fim] with paging, and answered
 * once by POST /v2/gn/infracoes/{idInfracao}/defesa (aceito → ACEITA, rejeitado → EM_DEFESA; the
 * same answer again is a replay, another is 409; past the deadline 422), the same record /v1 reads;
 * a defended case decided by Efí (ACEITA, REJEITADA) or a case cancelled (CANCELADA_EFI).
 */
import { chargeRequest } from './harness';
import { startEfiSandbox, type EfiHarness } from './efiHarness';
import { freshInstant, instant } from './pixApiHarness';

let h: EfiHarness | undefined;
/** The sandbox's clock runs this far ahead of the real one (the deadline test moves it). */
let skewMs = 0;

beforeEach(() => {
  skewMs = 0;
});

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function infraction(reference: string, amountCents = 1_500, reason?: string) {
  const charge = await h!.provider.issueCharge(chargeRequest({ reference, amountCents }));
  expect((await h!.call('POST', `/sandbox/charges/${charge.id}/pay`, {})).status).toBe(200);
  const opened = await h!.call('POST', `/sandbox/charges/${reference}/infractions`, reason ? { reason } : {});
  expect(opened.status).toBe(201);
  return { charge, infraction: opened.json };
}

it('lists the infractions opened in [inicio, fim] in Efí shape, oldest first, with paging', async () => {
  h = await startEfiSandbox();
  const inicio = await freshInstant();
  const a = await infraction('ref-med-a', 1_500);
  const b = await infraction('ref-med-b', 2_000, 'SCAM');
  const fim = instant(1_000);
  const list = await h.efi('GET', `/v2/gn/infracoes?inicio=${inicio}&fim=${fim}`);
  expect(list.status).toBe(200);
  expect(list.json.parametros).toEqual({
    inicio,
    fim,
    paginacao: { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: 2 },
  });
  expect(list.json.infracoes.map((i: any) => i.idInfracao)).toEqual([a.infraction.id, b.infraction.id]);
  expect(list.json.infracoes[0]).toEqual({
    idInfracao: a.infraction.id,
    endToEndId: a.infraction.endToEndId,
    protocolo: expect.any(String),
    dataTransacao: expect.any(String),
    chave: '11222333000181',
    valor: '15.00',
    status: 'ABERTA',
    razao: expect.any(String),
    tipoSituacao: 'acesso fraudulento',
    identificadorTicket: [],
    dadosAnalise: { abertura: a.infraction.openedAt, prazoFinalizacao: a.infraction.analysisDeadline },
    origem: {
      nomeParticipante: 'Banco Sandbox',
      conta: expect.any(String),
      nome: 'Pagador Sandbox',
      documento: '52998224725',
    },
    destino: expect.objectContaining({ documento: '11222333000181' }),
    criadoEm: a.infraction.openedAt,
    atualizadoEm: a.infraction.openedAt,
  });
  expect(list.json.infracoes[1]).toMatchObject({ valor: '20.00', tipoSituacao: 'golpe' });
  const page = await h.efi(
    'GET',
    `/v2/gn/infracoes?inicio=${inicio}&fim=${fim}&paginacao.itensPorPagina=1&paginacao.paginaAtual=1`,
  );
  expect(page.json.infracoes.map((i: any) => i.idInfracao)).toEqual([b.infraction.id]);
  expect(page.json.parametros.paginacao).toMatchObject({ quantidadeDePaginas: 2, quantidadeTotalDeItens: 2 });
  expect((await h.efi('GET', `/v2/gn/infracoes?inicio=${instant(-60_000)}&fim=${inicio}`)).json.infracoes).toEqual([]);
  const bad = await h.efi('GET', `/v2/gn/infracoes?inicio=${inicio}`);
  expect(bad.status).toBe(400);
  expect(bad.json).toMatchObject({
    type: 'https://pix.bcb.gov.br/api/v2/error/InfracoesConsultaInvalida',
    status: 400,
    violacoes: [expect.objectContaining({ propriedade: 'fim' })],
  });
  expect((await h.efi('GET', `/v2/gn/infracoes?inicio=${inicio}&fim=${fim}`, undefined, null)).status).toBe(401);
});

it('records one defence per infraction: aceito → ACEITA, rejeitado → EM_DEFESA, replay 201, another answer 409', async () => {
  h = await startEfiSandbox();
  const inicio = await freshInstant();
  const accepted = (await infraction('ref-def-a')).infraction;
  const defended = (await infraction('ref-def-b')).infraction;
  const defesa = (id: string, body: unknown) => h!.efi('POST', `/v2/gn/infracoes/${id}/defesa`, body);

  const first = await defesa(accepted.id, { analise: 'aceito', justificativa: 'Reconhecemos a fraude.' });
  expect(first.status).toBe(201);
  expect(first.text).toBe('');
  expect((await defesa(accepted.id, { analise: 'aceito', justificativa: 'Reconhecemos a fraude.' })).status).toBe(201);
  const other = await defesa(accepted.id, { analise: 'rejeitado', justificativa: 'Mudei de ideia.' });
  expect(other.status).toBe(409);
  expect(other.json).toMatchObject({
    type: 'https://pix.bcb.gov.br/api/v2/error/InfracaoOperacaoInvalida',
    status: 409,
    violacoes: [{ razao: 'A defesa para essa infração já foi criada.', propriedade: 'body.infractionId' }],
  });
  expect(
    (await defesa(defended.id, { analise: 'rejeitado', justificativa: 'O cliente recebeu o produto.' })).status,
  ).toBe(201);

  const list = (await h.efi('GET', `/v2/gn/infracoes?inicio=${inicio}&fim=${instant(1_000)}`)).json.infracoes;
  const [a, b] = list;
  expect(a).toMatchObject({ status: 'ACEITA', defesa: 'Reconhecemos a fraude.' });
  expect(a.dadosAnalise).toEqual({
    abertura: accepted.openedAt,
    prazoFinalizacao: accepted.analysisDeadline,
    recebimentoDefesa: expect.any(String),
    finalizacao: a.dadosAnalise.recebimentoDefesa,
  });
  expect(b).toMatchObject({ status: 'EM_DEFESA', defesa: 'O cliente recebeu o produto.' });
  expect(b.dadosAnalise.recebimentoDefesa).toEqual(expect.any(String));
  expect(b.dadosAnalise.finalizacao).toBeUndefined();
  // The one store: /v1 reads the same answers.
  const v1 = (await h.call('GET', '/sandbox/infractions')).json.infractions;
  expect(v1.find((i: any) => i.id === accepted.id)).toMatchObject({ status: 'ACCEPTED', decision: 'ACCEPT' });
  expect(v1.find((i: any) => i.id === defended.id)).toMatchObject({ status: 'IN_DEFENCE', decision: 'REJECT' });
});

it('Efí decides: EM_DEFESA → ACEITA (upheld) or REJEITADA (dismissed), an open case CANCELADA_EFI, each with finalizacao; a planned outcome applies by itself', async () => {
  h = await startEfiSandbox({ now: () => new Date(Date.now() + skewMs) });
  const inicio = await freshInstant();
  const upheld = (await infraction('ref-dec-a')).infraction;
  const dismissed = (await infraction('ref-dec-b')).infraction;
  const cancelled = (await infraction('ref-dec-c')).infraction;
  await h.call('POST', '/sandbox/charges/ref-dec-a/pay', {});
  const chargeD = await h.provider.issueCharge(chargeRequest({ reference: 'ref-dec-d', amountCents: 900 }));
  await h.call('POST', `/sandbox/charges/${chargeD.id}/pay`, {});
  const planned = (
    await h.call('POST', '/sandbox/charges/ref-dec-d/infractions', { decideAfterSeconds: 60, outcome: 'CANCELLED' })
  ).json;
  const defesa = (id: string) =>
    h!.efi('POST', `/v2/gn/infracoes/${id}/defesa`, { analise: 'rejeitado', justificativa: 'Entregue.' });
  expect((await defesa(upheld.id)).status).toBe(201);
  expect((await defesa(dismissed.id)).status).toBe(201);
  const decide = (id: string, outcome: string) => h!.call('POST', `/sandbox/infractions/${id}/decision`, { outcome });
  expect((await decide(upheld.id, 'UPHELD')).status).toBe(200);
  expect((await decide(dismissed.id, 'DISMISSED')).status).toBe(200);
  expect((await decide(cancelled.id, 'CANCELLED')).status).toBe(200);
  const list = async () =>
    new Map<string, any>(
      (await h!.efi('GET', `/v2/gn/infracoes?inicio=${inicio}&fim=${instant(skewMs + 1_000)}`)).json.infracoes.map(
        (i: any) => [i.idInfracao, i],
      ),
    );
  let seen = await list();
  expect(seen.get(upheld.id)).toMatchObject({ status: 'ACEITA', defesa: 'Entregue.' });
  expect(seen.get(dismissed.id)).toMatchObject({ status: 'REJEITADA' });
  expect(seen.get(cancelled.id)).toMatchObject({ status: 'CANCELADA_EFI' });
  for (const id of [upheld.id, dismissed.id, cancelled.id])
    expect(seen.get(id).dadosAnalise.finalizacao).toEqual(seen.get(id).atualizadoEm);
  expect(seen.get(cancelled.id).dadosAnalise.recebimentoDefesa).toBeUndefined();
  // A cancelled case takes no defence.
  expect((await defesa(cancelled.id)).status).toBe(409);
  expect(seen.get(planned.id)).toMatchObject({ status: 'ABERTA' });
  skewMs = 61_000;
  seen = await list();
  expect(seen.get(planned.id)).toMatchObject({
    status: 'CANCELADA_EFI',
    dadosAnalise: { finalizacao: expect.any(String) },
  });
});

it('refuses a malformed defence (400), an unknown infraction (404) and one past the deadline (422)', async () => {
  h = await startEfiSandbox({ now: () => new Date(Date.now() + skewMs) });
  const open = (await infraction('ref-def-c')).infraction;
  const defesa = (id: string, body: unknown) => h!.efi('POST', `/v2/gn/infracoes/${id}/defesa`, body);
  for (const body of [
    { analise: 'talvez', justificativa: 'x' },
    { analise: 'aceito' },
    { analise: 'aceito', justificativa: '' },
    { analise: 'aceito', justificativa: 'x', extra: 1 },
  ]) {
    const bad = await defesa(open.id, body);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      type: 'https://pix.bcb.gov.br/api/v2/error/InfracoesConsultaInvalida',
      status: 400,
    });
  }
  const unknown = await defesa('sbx_inf_nosuchinfraction', { analise: 'aceito', justificativa: 'x' });
  expect(unknown.status).toBe(404);
  expect(unknown.json).toEqual({
    type: 'https://pix.bcb.gov.br/api/v2/error/InfracaoNaoEncontrada',
    title: 'Não Encontrado',
    status: 404,
    detail: 'Infração não encontrada.',
  });
  skewMs = 8 * 86_400_000;
  const late = await defesa(open.id, { analise: 'rejeitado', justificativa: 'Tarde demais.' });
  expect(late.status).toBe(422);
  expect(late.json).toMatchObject({
    type: 'https://pix.bcb.gov.br/api/v2/error/InfracaoOperacaoInvalida',
    status: 422,
  });
  expect((await h.call('GET', '/sandbox/infractions')).json.infractions[0]).toMatchObject({
    status: 'OPEN',
    decision: null,
  });
});
