/**
 * The Efí send adapter (activities/provider/efi/efiTransfers.ts) against a scripted Efí client:
 * what each of Efí's answers becomes in the transfer path's terms. Efí itself is outside the
 * system, so it is scripted here; the sandbox over HTTP is exercised by the integration tests.
 */
import { EfiTransfers } from '../../activities/provider/efi/efiTransfers';
import type { EfiClient, SendBody } from '../../activities/provider/efi/efiClient';
import { efiAnswerError, isEfiNotFound } from '../../activities/provider/efi/errors';
import type { SentPix } from '../../activities/provider/efi/schemas';
import { idEnvioFor } from '../../core/pix/apiPixIds';
import { ProviderError, type TransferRequest } from '../../core/provider';
import { transferFailureOfIsoReason } from '../../core/transfers/failures';
import type { SendGate } from '../../db/sendSlots';

const REFERENCE = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const ID_ENVIO = idEnvioFor(REFERENCE);

function request(over: Partial<TransferRequest> = {}): TransferRequest {
  return {
    reference: REFERENCE,
    amountCents: 12_345,
    pixKey: 'ana@example.com',
    pixKeyType: 'EMAIL',
    recipientName: 'Ana',
    recipientDocument: '529.982.247-25',
    ...over,
  };
}

function sent(status: SentPix['status'], over: Partial<SentPix> = {}): SentPix {
  return {
    endToEndId: 'E12345678202611271200abcdefghijk',
    idEnvio: ID_ENVIO,
    valor: '123.45',
    status,
    horario: { solicitacao: '2026-11-27T12:00:00Z' },
    ...over,
  };
}

/** A scripted Efí: `send` answers or throws; `sent` answers the queued reads in order (the last repeats). */
function scripted(script: { send?: () => Promise<unknown>; reads?: Array<SentPix | null> }) {
  const calls: { sends: Array<{ idEnvio: string; body: SendBody }>; reads: number } = { sends: [], reads: 0 };
  const reads = [...(script.reads ?? [])];
  const client = {
    send: async (idEnvio: string, body: SendBody) => {
      calls.sends.push({ idEnvio, body });
      return script.send ? script.send() : { idEnvio, valor: body.valor, status: 'EM_PROCESSAMENTO' };
    },
    sent: async () => {
      calls.reads++;
      return reads.length > 1 ? reads.shift()! : (reads[0] ?? null);
    },
  } as unknown as EfiClient;
  let gated = 0;
  const slots: SendGate = { run: (fn) => (gated++, fn()), close: async () => undefined };
  const transfers = new EfiTransfers({
    client,
    senderKey: '11222333000181',
    slots,
    outcomeWaitMs: 1_000,
    sleep: async () => undefined,
  });
  return { transfers, calls, gated: () => gated };
}

const refusal = (status: number, nome: string) =>
  efiAnswerError({ status, headers: {}, text: JSON.stringify({ nome, mensagem: 'x' }) }, 'Efí PUT', Date.now());

describe('EfiTransfers.transfer', () => {
  it('sends under the idEnvio of our reference, with valor, the paying key and the recipient document, and reads the outcome back', async () => {
    const { transfers, calls, gated } = scripted({ reads: [sent('EM_PROCESSAMENTO'), sent('REALIZADO')] });
    const transfer = await transfers.transfer(request());
    expect(calls.sends).toEqual([
      {
        idEnvio: ID_ENVIO,
        body: {
          valor: '123.45',
          pagador: { chave: '11222333000181' },
          favorecido: { chave: 'ana@example.com', cpf: '52998224725' },
        },
      },
    ]);
    expect(ID_ENVIO).toMatch(/^[a-f0-9]{32}$/);
    expect(transfer).toMatchObject({
      id: ID_ENVIO,
      reference: REFERENCE,
      status: 'COMPLETED',
      amountCents: 12_345,
      endToEndId: 'E12345678202611271200abcdefghijk',
    });
    expect(calls.reads).toBe(2);
    expect(gated()).toBe(1);
  });

  it('names a CNPJ as cnpj, and no document when none is known', async () => {
    const a = scripted({ reads: [sent('REALIZADO')] });
    await a.transfers.transfer(request({ recipientDocument: '11.222.333/0001-81' }));
    expect(a.calls.sends[0].body.favorecido).toEqual({ chave: 'ana@example.com', cnpj: '11222333000181' });
    const b = scripted({ reads: [sent('REALIZADO')] });
    await b.transfers.transfer(request({ recipientDocument: null }));
    expect(b.calls.sends[0].body.favorecido).toEqual({ chave: 'ana@example.com' });
  });

  it('NAO_REALIZADO is a FAILED transfer: the ISO reason when the read gives one, else the recipient refusing', async () => {
    const withReason = scripted({ reads: [sent('NAO_REALIZADO', { erro: { codigo: 'AC03' } })] });
    expect(await withReason.transfers.transfer(request())).toMatchObject({
      status: 'FAILED',
      failureCode: 'INVALID_PIX_KEY',
      endToEndId: null,
    });
    const bare = scripted({ reads: [sent('NAO_REALIZADO')] });
    expect(await bare.transfers.transfer(request())).toMatchObject({
      status: 'FAILED',
      failureCode: 'RECIPIENT_REFUSED',
    });
  });

  it('409 id_envio_duplicado: an earlier attempt went through; its record is the answer, no second send', async () => {
    const { transfers, calls } = scripted({
      send: () => Promise.reject(refusal(409, 'id_envio_duplicado')),
      reads: [sent('REALIZADO')],
    });
    expect(await transfers.transfer(request())).toMatchObject({ status: 'COMPLETED', reference: REFERENCE });
    expect(calls.sends).toHaveLength(1);
  });

  it('409 with no record at all is not a refusal: thrown permanent, for the transfer path to ask again', async () => {
    const { transfers } = scripted({ send: () => Promise.reject(refusal(409, 'id_envio_duplicado')), reads: [null] });
    await expect(transfers.transfer(request())).rejects.toMatchObject({
      code: 'SEND_ID_ALREADY_USED',
      transient: false,
    });
  });

  it('chave_nao_pertence_ao_documento with nothing under the idEnvio: FAILED as RECIPIENT_DOCUMENT_MISMATCH', async () => {
    const { transfers, calls } = scripted({
      send: () => Promise.reject(refusal(400, 'chave_nao_pertence_ao_documento')),
      reads: [null],
    });
    expect(await transfers.transfer(request())).toMatchObject({
      status: 'FAILED',
      failureCode: 'RECIPIENT_DOCUMENT_MISMATCH',
      reference: REFERENCE,
    });
    expect(calls.reads).toBe(1);
  });

  it('a refusal while Efí holds a send under the idEnvio: the record wins', async () => {
    const { transfers } = scripted({
      send: () => Promise.reject(refusal(400, 'chave_invalida')),
      reads: [sent('REALIZADO')],
    });
    expect(await transfers.transfer(request())).toMatchObject({ status: 'COMPLETED' });
  });

  it('a timeout or a 5xx is outcome unknown: thrown transient before any read, for the path to ask GET first', async () => {
    const { transfers, calls } = scripted({
      send: () => Promise.reject(new ProviderError('no answer', 'PROVIDER_TIMEOUT', true)),
    });
    await expect(transfers.transfer(request())).rejects.toMatchObject({ code: 'PROVIDER_TIMEOUT', transient: true });
    expect(calls.reads).toBe(0);
  });

  it('still EM_PROCESSAMENTO when the wait ends: transient TRANSFER_PROCESSING (asked again later, never released)', async () => {
    const { transfers } = scripted({ reads: [sent('EM_PROCESSAMENTO')] });
    await expect(transfers.transfer(request())).rejects.toMatchObject({ code: 'TRANSFER_PROCESSING', transient: true });
  });
});

describe('EfiTransfers.getTransferByReference', () => {
  it('null when Efí has no send under the idEnvio; the record with its returns otherwise', async () => {
    expect(await scripted({ reads: [null] }).transfers.getTransferByReference(REFERENCE)).toBeNull();
    const returned = sent('REALIZADO', {
      devolucoes: [
        { id: 'D1', rtrId: 'D123', valor: '20.00', status: 'DEVOLVIDO', horario: {} },
        { id: 'D2', rtrId: 'D124', valor: '5.00', status: 'EM_PROCESSAMENTO', horario: {} },
      ],
    });
    expect(await scripted({ reads: [returned] }).transfers.getTransferByReference(REFERENCE)).toMatchObject({
      status: 'COMPLETED',
      returns: [{ id: 'D1', amountCents: 2_000 }],
    });
  });
});

describe("Efí's errors", () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers,
    text: typeof body === 'string' ? body : JSON.stringify(body),
  });

  it('maps both of its forms to our codes, the PSP words kept out of the message', () => {
    expect(efiAnswerError(answer(400, { nome: 'chave_invalida', mensagem: 'segredo' }), 'Efí PUT', 0)).toMatchObject({
      code: 'INVALID_PIX_KEY',
      transient: false,
    });
    const problem = { type: 'https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado', title: 'x', status: 404 };
    expect(isEfiNotFound(answer(404, problem))).toBe(true);
    expect(isEfiNotFound(answer(404, '<html>not found</html>'))).toBe(false);
    const limited = efiAnswerError(answer(429, { nome: 'rate', mensagem: 'x' }, { 'retry-after': '3' }), 'Efí', 0);
    expect(limited).toMatchObject({ transient: true, retryAfterMs: 3_000 });
    expect(efiAnswerError(answer(503, 'down'), 'Efí', 0).transient).toBe(true);
    expect(efiAnswerError(answer(400, '<html/>'), 'Efí', 0)).toMatchObject({
      code: 'PROVIDER_OUTCOME_UNKNOWN',
      transient: true,
    });
    expect(
      efiAnswerError(answer(400, { nome: 'chave_invalida', mensagem: 'segredo' }), 'Efí PUT', 0).message,
    ).not.toMatch(/segredo/);
  });

  it('ISO 20022 reasons map to the failure codes merchants already see', () => {
    expect(transferFailureOfIsoReason('AC03')).toBe('INVALID_PIX_KEY');
    expect(transferFailureOfIsoReason('am04')).toBe('INSUFFICIENT_FUNDS');
    expect(transferFailureOfIsoReason('BE01')).toBe('RECIPIENT_DOCUMENT_MISMATCH');
    expect(transferFailureOfIsoReason('DS04')).toBe('RECIPIENT_REFUSED');
    expect(transferFailureOfIsoReason('constructor')).toBe('RECIPIENT_REFUSED');
    expect(transferFailureOfIsoReason(null)).toBe('RECIPIENT_REFUSED');
  });
});
