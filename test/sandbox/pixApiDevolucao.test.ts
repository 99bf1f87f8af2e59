/**
 * Devoluções through API Pix: EM_PROCESSAMENTO then DEVOLVIDO, or NAO_REALIZADO with a motivo
 * (an amount ending in 13 cents); the same id again is the same devolução; no more than what is
 * left of the payment, counting /v1 payment-returns too (one store of returns for both APIs).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pixApiSchemaValidator, type SchemaValidator } from '../support/pixApiSpec';
import { startReceiver, type Receiver } from '../support/receiver';
import { API_KEY, waitFor } from './harness';
import { cobBody, newTxid, RECEIVING_KEY, startPixApiSandbox, type PixApiHarness } from './pixApiHarness';

const ERROR = 'https://pix.bcb.gov.br/api/v2/error/';
const SETTLE_MS = 100;

let h: PixApiHarness;
let receiver: Receiver;
let conforms: SchemaValidator;
beforeAll(async () => {
  [h, receiver, conforms] = await Promise.all([
    startPixApiSandbox({ devolucaoSettleMs: SETTLE_MS }),
    startReceiver(),
    pixApiSchemaValidator(['Devolucao', 'Pix', 'Problema']),
  ]);
  await h.pix('PUT', `/webhook/${RECEIVING_KEY}`, { webhookUrl: `${receiver.url}/hooks` });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

/** A cob of `valor` paid; its endToEndId. */
async function paidPix(valor = '100.00'): Promise<string> {
  const txid = newTxid();
  await h.pix('PUT', `/cob/${txid}`, cobBody({ valor: { original: valor } }));
  return (await h.call('POST', `/sandbox/charges/${txid}/pay`, {})).json.endToEndId;
}

const settled = () => new Promise((r) => setTimeout(r, SETTLE_MS + 50));

describe('PUT /pix/{e2eid}/devolucao/{id}', () => {
  it('answers EM_PROCESSAMENTO, then reads DEVOLVIDO, inside the Pix too, and notifies the webhook', async () => {
    const e2e = await paidPix();
    const put = await h.pix('PUT', `/pix/${e2e}/devolucao/refund1`, { valor: '40.00', descricao: 'Troca' });
    expect(put.status).toBe(201);
    expect(conforms('Devolucao', put.json)).toEqual([]);
    expect(put.json).toMatchObject({
      id: 'refund1',
      valor: '40.00',
      natureza: 'ORIGINAL',
      descricao: 'Troca',
      status: 'EM_PROCESSAMENTO',
      horario: { solicitacao: expect.any(String) },
    });
    expect(put.json.rtrId).toMatch(/^D\d{8}\d{12}[a-zA-Z0-9]{11}$/);
    await settled();
    const got = await h.pix('GET', `/pix/${e2e}/devolucao/refund1`);
    expect(got.json).toMatchObject({
      id: 'refund1',
      rtrId: put.json.rtrId,
      status: 'DEVOLVIDO',
      horario: { liquidacao: expect.any(String) },
    });
    expect(conforms('Devolucao', got.json)).toEqual([]);
    const pix = await h.pix('GET', `/pix/${e2e}`);
    expect(pix.json.devolucoes).toEqual([got.json]);
    expect(conforms('Pix', pix.json)).toEqual([]);
    // The standard's callback on a devolução's final status: the Pix with its devoluções.
    const hit = await waitFor(() =>
      receiver.received.find((r) => r.rawBody.includes('DEVOLVIDO') && r.rawBody.includes(e2e)),
    );
    expect(hit.path).toBe('/hooks/pix');
    expect(JSON.parse(hit.rawBody).pix[0].devolucoes[0]).toMatchObject({ id: 'refund1', status: 'DEVOLVIDO' });
  });

  it('an amount ending in 13 cents is NAO_REALIZADO with a motivo, and returns nothing', async () => {
    const e2e = await paidPix('10.00');
    const put = await h.pix('PUT', `/pix/${e2e}/devolucao/r13`, { valor: '0.13' });
    expect(put.json.status).toBe('EM_PROCESSAMENTO');
    await settled();
    const got = await h.pix('GET', `/pix/${e2e}/devolucao/r13`);
    expect(got.json).toMatchObject({ status: 'NAO_REALIZADO', motivo: expect.stringMatching(/refused/) });
    expect(got.json.horario.liquidacao).toBeUndefined();
    // The whole payment is still returnable.
    expect((await h.pix('PUT', `/pix/${e2e}/devolucao/all`, { valor: '10.00' })).status).toBe(201);
  });

  it('the same id again answers the same devolução and returns no more; another request under it is a 400', async () => {
    const e2e = await paidPix('50.00');
    const first = await h.pix('PUT', `/pix/${e2e}/devolucao/same`, { valor: '30.00' });
    const again = await h.pix('PUT', `/pix/${e2e}/devolucao/same`, { valor: '30.00' });
    expect(again.status).toBe(201);
    expect(again.json.rtrId).toBe(first.json.rtrId);
    const transfers = [...h.sandbox.state.transfers.values()].filter((t) => t.returnOf === e2e);
    expect(transfers).toHaveLength(1);
    const other = await h.pix('PUT', `/pix/${e2e}/devolucao/same`, { valor: '10.00' });
    expect([other.status, other.json.type, other.json.violacoes[0].propriedade]).toEqual([
      400,
      `${ERROR}PixDevolucaoInvalida`,
      'id',
    ]);
  });

  it('refuses more than is left, counting /v1 payment-returns, and /v1 refuses past what API Pix returned', async () => {
    const e2e = await paidPix('100.00');
    expect((await h.pix('PUT', `/pix/${e2e}/devolucao/a`, { valor: '60.00' })).status).toBe(201);
    const v1Return = await h.call(
      'POST',
      '/v1/payment-returns',
      { reference: `ret-${e2e}`, amountCents: 3_000, endToEndId: e2e },
      { authorization: `Bearer ${API_KEY}`, 'idempotency-key': `ret-${e2e}` },
    );
    expect(v1Return.json.status).toBe('COMPLETED');
    const tooMuch = await h.pix('PUT', `/pix/${e2e}/devolucao/b`, { valor: '10.01' });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json).toMatchObject({
      type: `${ERROR}PixDevolucaoInvalida`,
      violacoes: [{ propriedade: 'devolucao.valor' }],
    });
    expect(tooMuch.json.detail).toContain('10.00');
    expect(conforms('Problema', tooMuch.json)).toEqual([]);
    const v1TooMuch = await h.call(
      'POST',
      '/v1/payment-returns',
      { reference: `ret2-${e2e}`, amountCents: 1_001, endToEndId: e2e },
      { authorization: `Bearer ${API_KEY}`, 'idempotency-key': `ret2-${e2e}` },
    );
    expect([v1TooMuch.json.status, v1TooMuch.json.failureCode]).toEqual(['FAILED', 'RETURN_EXCEEDS_PAYMENT']);
    expect((await h.pix('PUT', `/pix/${e2e}/devolucao/c`, { valor: '10.00' })).status).toBe(201);
    // Every return of the payment shows in the Pix, whichever API asked.
    await settled();
    const pix = await h.pix('GET', `/pix/${e2e}`);
    expect(pix.json.devolucoes.map((d: { valor: string; status: string }) => [d.valor, d.status])).toEqual([
      ['60.00', 'DEVOLVIDO'],
      ['30.00', 'DEVOLVIDO'],
      ['10.01', 'NAO_REALIZADO'],
      ['10.00', 'DEVOLVIDO'],
    ]);
    expect(conforms('Pix', pix.json)).toEqual([]);
  });

  it('404s an unknown Pix or devolução and refuses a bad id or valor', async () => {
    const e2e = await paidPix();
    const unknownPix = await h.pix('PUT', '/pix/E99999999202001011200abcdefghijk/devolucao/x', { valor: '1.00' });
    expect([unknownPix.status, unknownPix.json.type]).toEqual([404, `${ERROR}PixNaoEncontrado`]);
    const unknown = await h.pix('GET', `/pix/${e2e}/devolucao/never`);
    expect([unknown.status, unknown.json.type]).toEqual([404, `${ERROR}PixDevolucaoNaoEncontrada`]);
    const badId = await h.pix('PUT', `/pix/${e2e}/devolucao/${'x'.repeat(36)}`, { valor: '1.00' });
    expect([badId.status, badId.json.violacoes[0].propriedade]).toEqual([400, 'id']);
    for (const valor of ['1', '1,00', '0.00', '-1.00']) {
      const res = await h.pix('PUT', `/pix/${e2e}/devolucao/v${valor.length}`, { valor });
      expect([valor, res.status, res.json.violacoes[0].propriedade]).toEqual([valor, 400, 'devolucao.valor']);
    }
    const retirada = await h.pix('PUT', `/pix/${e2e}/devolucao/saque`, { valor: '1.00', natureza: 'RETIRADA' });
    expect([retirada.status, retirada.json.violacoes[0].propriedade]).toEqual([400, 'devolucao.natureza']);
  });
});

describe('on disk', () => {
  it('keeps cobs (with their revisions), devoluções and webhooks across a restart; access tokens are not kept', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-pix-state-'));
    const dataFile = path.join(dir, 'state.jsonl');
    try {
      const first = await startPixApiSandbox({ dataFile, devolucaoSettleMs: 0 });
      const txid = newTxid();
      await first.pix('PUT', `/cob/${txid}`, cobBody());
      await first.pix('PATCH', `/cob/${txid}`, { valor: { original: '40.00' } });
      const e2e = (await first.call('POST', `/sandbox/charges/${txid}/pay`, {})).json.endToEndId as string;
      const devolucao = (await first.pix('PUT', `/pix/${e2e}/devolucao/kept1`, { valor: '15.00' })).json;
      await first.pix('PUT', `/webhook/${RECEIVING_KEY}`, { webhookUrl: 'http://127.0.0.1:9/kept' });
      const cob = (await first.pix('GET', `/cob/${txid}`)).json;
      await first.close();

      const second = await startPixApiSandbox({ dataFile });
      try {
        expect((await second.pix('GET', `/cob/${txid}`, undefined, first.token)).status).toBe(401);
        expect((await second.pix('GET', `/cob/${txid}`)).json).toEqual(cob);
        expect((await second.pix('GET', `/cob/${txid}?revisao=0`)).json.valor.original).toBe('25.00');
        expect((await second.pix('GET', `/pix/${e2e}/devolucao/kept1`)).json).toMatchObject({
          rtrId: devolucao.rtrId,
          status: 'DEVOLVIDO',
        });
        expect((await second.pix('GET', `/webhook/${RECEIVING_KEY}`)).json.webhookUrl).toBe('http://127.0.0.1:9/kept');
        // What was returned still counts: 25.00 of 40.00 is left.
        expect((await second.pix('PUT', `/pix/${e2e}/devolucao/kept2`, { valor: '25.01' })).status).toBe(400);
        // A new cob gets the next location id, not one already used.
        const next = (await second.pix('PUT', `/cob/${newTxid()}`, cobBody())).json;
        expect(next.loc.id).toBeGreaterThan(cob.loc.id);
        await second.pix('DELETE', `/webhook/${RECEIVING_KEY}`);
      } finally {
        await second.close();
      }
      const third = await startPixApiSandbox({ dataFile });
      try {
        expect((await third.pix('GET', `/webhook/${RECEIVING_KEY}`)).status).toBe(404);
      } finally {
        await third.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
