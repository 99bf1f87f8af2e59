/**
 * Devoluções of received Pix over API Pix: PUT /pix/{e2eid}/devolucao/{id} with id =
 * devolucaoIdFor(refund id), followed to its end. The standard answers EM_PROCESSAMENTO and
 * settles later (DEVOLVIDO, or NAO_REALIZADO when the payer's institution refuses): the PixProvider
 * contract answers a finished transfer, so the devolução is read back (GET) for a while, and one
 * still in processing is a transient error: the activity retries, asks the PSP first (its
 * lookup), and finds the same devolução under the same id. Nothing is released until the PSP
 * says NAO_REALIZADO, or has no devolução at all once the caller's grace period is over.
 */
import { devolucaoIdFor, refundIdOfDevolucaoId } from '../../core/pix/apiPixIds';
import { centsToPixAmount, pixAmountToCents } from '../../core/pix/pixAmount';
import { ProviderError, type PaymentReturnRequest, type ProviderTransfer } from '../../core/provider';
import { PixApiErrorCodes, type Devolucao, type PixApiClient } from './pixApi';

export type DevolucaoClient = Pick<PixApiClient, 'putDevolucao' | 'getDevolucao'>;

export interface ApiPixReturnsOptions {
  client: DevolucaoClient;
  /** How long one call waits for EM_PROCESSAMENTO to end before handing back to the retry policy. */
  settleWithinMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** The refusal code a refused devolução carries, as the provider's own API names it (core/transfers/failures.ts). */
export const DEVOLUCAO_REFUSED_CODE = 'RETURN_REFUSED';
/** A devolução still in processing: transient, the activity asks again. */
export const DEVOLUCAO_PENDING_CODE = 'PROVIDER_PENDING';

const DEFAULT_SETTLE_WITHIN_MS = 15_000;
const FIRST_WAIT_MS = 200;

export class ApiPixReturns {
  private readonly settleWithinMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: ApiPixReturnsOptions) {
    this.settleWithinMs = opts.settleWithinMs ?? DEFAULT_SETTLE_WITHIN_MS;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Asks for the devolução (idempotent by id) and answers it once it is DEVOLVIDO or NAO_REALIZADO. */
  async returnPayment(req: PaymentReturnRequest): Promise<ProviderTransfer> {
    const id = devolucaoIdFor(req.reference);
    const asked = await this.opts.client.putDevolucao(req.endToEndId, id, { valor: centsToPixAmount(req.amountCents) });
    return this.finished(req.endToEndId, asked);
  }

  /**
   * The devolução of this refund, once finished; null when the PSP has none (nor, through API Pix,
   * the payment it would return); transient while in processing.
   */
  async findPaymentReturn(req: { reference: string; endToEndId: string }): Promise<ProviderTransfer | null> {
    let found: Devolucao | null;
    try {
      found = await this.opts.client.getDevolucao(req.endToEndId, devolucaoIdFor(req.reference));
    } catch (err) {
      // PixNaoEncontrado: API Pix does not know the payment, so it made no devolução of it.
      if (err instanceof ProviderError && err.code === PixApiErrorCodes.pixNotFound) return null;
      throw err;
    }
    return found ? this.finished(req.endToEndId, found) : null;
  }

  private async finished(endToEndId: string, devolucao: Devolucao): Promise<ProviderTransfer> {
    let current = devolucao;
    const deadline = Date.now() + this.settleWithinMs;
    for (let wait = FIRST_WAIT_MS; current.status === 'EM_PROCESSAMENTO'; wait = Math.min(wait * 2, 2_000)) {
      if (Date.now() + wait > deadline) {
        throw new ProviderError(
          `API Pix devolução still EM_PROCESSAMENTO after ${this.settleWithinMs} ms; asked again later`,
          DEVOLUCAO_PENDING_CODE,
          true,
        );
      }
      await this.sleep(wait);
      // It was there a moment ago: a PSP that now denies it is answering nonsense, not "no devolução".
      const again = await this.opts.client.getDevolucao(endToEndId, current.id);
      if (!again)
        throw new ProviderError(
          'API Pix devolução not found right after it was read; outcome unknown',
          'PROVIDER_OUTCOME_UNKNOWN',
          true,
        );
      current = again;
    }
    return transferOf(endToEndId, current);
  }
}

/** A finished devolução as the transfer the refund path settles or releases. */
function transferOf(endToEndId: string, devolucao: Devolucao): ProviderTransfer {
  const refused = devolucao.status === 'NAO_REALIZADO';
  return {
    id: devolucao.id,
    // Not one of ours: '' makes the transfer path refuse to settle it (TransferMismatch).
    reference: refundIdOfDevolucaoId(devolucao.id) ?? '',
    status: refused ? 'FAILED' : 'COMPLETED',
    amountCents: pixAmountToCents(devolucao.valor),
    // A devolução goes back to the payer's account, not to a key: there is none to name.
    pixKey: '',
    pixKeyType: 'EVP',
    recipientName: '',
    endToEndId: refused ? null : devolucao.rtrId,
    // Our code; the PSP's motivo is its own words, for no merchant.
    failureCode: refused ? DEVOLUCAO_REFUSED_CODE : null,
    failureReason: null,
    createdAt: devolucao.horario.solicitacao ?? new Date().toISOString(),
    returnOf: endToEndId,
  };
}
