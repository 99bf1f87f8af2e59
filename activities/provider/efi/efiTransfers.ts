/**
 * Money out through Efí's Pix send API, behind the one transfer path (activities/transfers/
 * transferPath.ts): `transfer` and `getTransferByReference` answer the path's questions in its
 * terms (a transfer COMPLETED or FAILED, or no record), and every rule of the path holds.
 *
 * - idEnvio, Efí's idempotency key, is derived from our business id (idEnvioFor): a retried
 *   send is the same idEnvio, and Efí answers a reuse with 409 id_envio_duplicado.
 * - The recipient's document goes with the key whenever we know it, so Efí refuses a key of
 *   anyone else (chave_nao_pertence_ao_documento: RECIPIENT_DOCUMENT_MISMATCH).
 * - A send is EM_PROCESSAMENTO at first. Its outcome is always read back with
 *   `GET /v2/gn/pix/enviados/id-envio/{idEnvio}` (never taken from a webhook's content): the
 *   send holds its slot (Efí: one send at a time per account) and polls until REALIZADO or
 *   NAO_REALIZADO; still processing when our wait ends is a transient error, asked again later.
 * - 409 id_envio_duplicado means an earlier attempt went through: answered by GET. A refusal Efí
 *   answers at once is a FAILED transfer only once GET confirms nothing exists under the idEnvio.
 * - A timeout, a 5xx, a network error: outcome unknown, thrown as transient; the transfer path
 *   asks GET before any new PUT.
 */
import { idEnvioFor, referenceOfIdEnvio } from '../../../core/pix/apiPixIds';
import { centsToPixAmount, pixAmountToCents } from '../../../core/pix/pixAmount';
import {
  ProviderError,
  type PixKeyType,
  type ProviderTransfer,
  type StatementTransfer,
  type TransferRequest,
} from '../../../core/provider';
import { transferFailureOfIsoReason } from '../../../core/transfers/failures';
import type { SendGate } from '../../../db/sendSlots';
import type { EfiClient, SendBody } from './efiClient';
import { EfiErrorCodes, SEND_REFUSALS } from './errors';
import type { SentPix } from './schemas';

export interface EfiTransfersOptions {
  client: EfiClient;
  /** pagador.chave: the account's key that pays (PIX_SENDER_KEY). */
  senderKey: string;
  slots: SendGate;
  /** How long one call waits for EM_PROCESSAMENTO to end (PIX_SEND_OUTCOME_WAIT_MS). */
  outcomeWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** Read at once after the PUT, then after POLL_FIRST_MS, twice as long each time, at most POLL_MAX_MS apart. */
export const POLL_FIRST_MS = 50;
export const POLL_MAX_MS = 1_000;

export class EfiTransfers {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;

  constructor(private readonly opts: EfiTransfersOptions) {
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = opts.now ?? Date.now;
  }

  /** Sends the transfer and answers its outcome (see the file comment). */
  transfer(req: TransferRequest): Promise<ProviderTransfer> {
    const idEnvio = idEnvioFor(req.reference);
    return this.opts.slots.run(async () => {
      try {
        await this.opts.client.send(idEnvio, this.bodyOf(req));
      } catch (err) {
        if (!(err instanceof ProviderError) || err.transient) throw err;
        // A refusal, or "this idEnvio was used": Efí's record of the idEnvio decides.
        const existing = await this.opts.client.sent(idEnvio);
        if (existing) return this.outcome(idEnvio, existing, req);
        if (Object.values(SEND_REFUSALS).includes(err.code)) return refused(req, idEnvio, err.code);
        throw err; // 409 with no record, 401, 403…: outcome unknown, the path asks again
      }
      return this.outcome(idEnvio, null, req);
    });
  }

  /** Efí's record of the transfer with our reference, once it has an outcome; null when it has none. */
  async getTransferByReference(reference: string): Promise<ProviderTransfer | null> {
    const idEnvio = idEnvioFor(reference);
    const found = await this.opts.client.sent(idEnvio);
    return found ? this.outcome(idEnvio, found, null) : null;
  }

  /** Sends of ours made in [from, to) (the statement's transfers): REALIZADO or NAO_REALIZADO, by request time. */
  async sentBetween(range: { from: string; to: string }): Promise<StatementTransfer[]> {
    const toMs = Date.parse(range.to);
    const out: StatementTransfer[] = [];
    for (const pix of await this.opts.client.sentBetween({ inicio: range.from, fim: range.to })) {
      const reference = pix.idEnvio ? referenceOfIdEnvio(pix.idEnvio) : null;
      const requestedAt = pix.horario?.solicitacao ?? null;
      if (!reference || pix.status === 'EM_PROCESSAMENTO' || (requestedAt && Date.parse(requestedAt) >= toMs)) continue;
      out.push({
        id: pix.idEnvio!,
        reference,
        kind: 'TRANSFER',
        status: pix.status === 'REALIZADO' ? 'COMPLETED' : 'FAILED',
        amountCents: pixAmountToCents(pix.valor),
        endToEndId: pix.endToEndId ?? null,
        returnOf: null,
        createdAt: requestedAt ?? range.from,
      });
    }
    return out;
  }

  /** The account's balance (GET /v2/gn/saldo). */
  balanceCents(): Promise<number> {
    return this.opts.client.balanceCents();
  }

  private bodyOf(req: TransferRequest): SendBody {
    const document = req.recipientDocument?.replace(/\D/g, '') ?? '';
    const favorecido: SendBody['favorecido'] = { chave: req.pixKey };
    if (document.length === 11) favorecido.cpf = document;
    else if (document.length === 14) favorecido.cnpj = document;
    return { valor: centsToPixAmount(req.amountCents), pagador: { chave: this.opts.senderKey }, favorecido };
  }

  /** Reads the send until it has an outcome (or our wait ends: transient TRANSFER_PROCESSING). */
  private async outcome(
    idEnvio: string,
    known: SentPix | null,
    req: TransferRequest | null,
  ): Promise<ProviderTransfer> {
    const deadline = this.now() + this.opts.outcomeWaitMs;
    // At once first: a send whose outcome is already known costs one read, no wait.
    let sent = known ?? (await this.opts.client.sent(idEnvio));
    // Unknown to the query right after a 201 is Efí's record lagging: polled within the same bound.
    for (
      let pause = POLL_FIRST_MS;
      sent === null || sent.status === 'EM_PROCESSAMENTO';
      pause = Math.min(pause * 2, POLL_MAX_MS)
    ) {
      if (this.now() + pause > deadline)
        throw new ProviderError(
          `the Pix sent under idEnvio ${idEnvio} has no outcome yet; ask again later`,
          EfiErrorCodes.processing,
          true,
        );
      await this.sleep(pause);
      sent = await this.opts.client.sent(idEnvio);
    }
    return transferOf(idEnvio, sent, req);
  }
}

function transferOf(idEnvio: string, sent: SentPix, req: TransferRequest | null): ProviderTransfer {
  const failed = sent.status === 'NAO_REALIZADO';
  const reason = sent.erro?.codigo ?? sent.gnExtras?.erro?.codigo ?? null;
  return {
    id: idEnvio,
    // Our reference only if the idEnvio is ours: the path compares it with what it sent.
    reference: referenceOfIdEnvio(sent.idEnvio ?? idEnvio) ?? '',
    status: failed ? 'FAILED' : 'COMPLETED',
    amountCents: pixAmountToCents(sent.valor),
    pixKey: req?.pixKey ?? '',
    pixKeyType: (req?.pixKeyType ?? 'EVP') as PixKeyType,
    recipientName: req?.recipientName ?? '',
    endToEndId: failed ? null : (sent.endToEndId ?? null),
    failureCode: failed ? transferFailureOfIsoReason(reason) : null,
    failureReason: null,
    createdAt: sent.horario?.solicitacao ?? new Date().toISOString(),
    returns: (sent.devolucoes ?? [])
      .filter((d) => d.status === 'DEVOLVIDO')
      .map((d) => ({ id: d.id, amountCents: pixAmountToCents(d.valor) })),
  };
}

/** A refusal Efí answered at once, with nothing recorded under the idEnvio (GET said so). */
function refused(req: TransferRequest, idEnvio: string, code: string): ProviderTransfer {
  return {
    id: idEnvio,
    reference: req.reference,
    status: 'FAILED',
    amountCents: req.amountCents,
    pixKey: req.pixKey,
    pixKeyType: req.pixKeyType,
    recipientName: req.recipientName,
    endToEndId: null,
    failureCode: code,
    failureReason: null,
    createdAt: new Date().toISOString(),
  };
}
