/**
 * The provider the gateway runs with: Pix charges over the BCB's API Pix (cobs, apiPixCharges.ts),
 * the Pix received on them (GET /pix, apiPixReceived.ts) and their devoluções (apiPixReturns.ts);
 * everything the standard does not cover over the provider's own API (httpPixProvider.ts):
 * transfers, boletos, DICT look-ups, the statement of transfers, infractions.
 *
 * Charges are routed by the shape of their provider id. A cob's id is its txid, the 32 hex digits
 * of our charge id (chargeIdOfTxid parses it); anything else (`sbx_ch_…`) is a charge issued
 * through the provider's own API before the switch, which keeps settling and closing there.
 */
import { chargeIdOfTxid } from '../../core/pix/apiPixIds';
import type {
  BoletoProvider,
  InfractionDecision,
  InfractionProvider,
  IssueBoletoRequest,
  IssueChargeRequest,
  PaymentReturnRequest,
  PixKeyOwner,
  PixProvider,
  ReceivedPix,
  ReceivedPixProvider,
  ProviderBoleto,
  ProviderCharge,
  ProviderInfraction,
  ProviderStatement,
  ProviderTransfer,
  StatementProvider,
  TransferRequest,
} from '../../core/provider';
import { refundIdOfDevolucaoId } from '../../core/pix/apiPixIds';
import type { ApiPixCharges } from './apiPixCharges';
import type { ApiPixReturns } from './apiPixReturns';
import { mergedPayments, receivedPayments, receivedPix, type PixListClient } from './apiPixReceived';
import type { HttpPixProvider } from './httpPixProvider';

export interface RoutedPixProviderParts {
  cobs: ApiPixCharges;
  returns: ApiPixReturns;
  /** API Pix's list of received Pix (the statement's payments). */
  pixList: PixListClient;
  /** The provider's own API. */
  own: HttpPixProvider;
}

export class RoutedPixProvider
  implements PixProvider, BoletoProvider, StatementProvider, InfractionProvider, ReceivedPixProvider
{
  private readonly cobs: ApiPixCharges;
  private readonly returns: ApiPixReturns;
  private readonly pixList: PixListClient;
  private readonly own: HttpPixProvider;

  constructor(parts: RoutedPixProviderParts) {
    ({ cobs: this.cobs, returns: this.returns, pixList: this.pixList, own: this.own } = parts);
  }

  issueCharge(req: IssueChargeRequest): Promise<ProviderCharge> {
    return this.cobs.issueCharge(req);
  }

  getCharge(providerChargeId: string): Promise<ProviderCharge> {
    return isCob(providerChargeId) ? this.cobs.getCharge(providerChargeId) : this.own.getCharge(providerChargeId);
  }

  /** The cob of our charge id; else a charge the provider's own API issued for it before the switch. */
  async findChargeByReference(reference: string): Promise<ProviderCharge | null> {
    return (await this.cobs.findChargeByReference(reference)) ?? this.own.findChargeByReference(reference);
  }

  closeCharge(providerChargeId: string, reason: 'EXPIRED' | 'CANCELLED'): Promise<ProviderCharge> {
    return isCob(providerChargeId)
      ? this.cobs.closeCharge(providerChargeId, reason)
      : this.own.closeCharge(providerChargeId, reason);
  }

  /** API Pix's GET /pix: every Pix received on the account, ours or not. */
  listReceivedPix(range: { from: string; to: string }): Promise<ReceivedPix[]> {
    return receivedPix(this.pixList, range);
  }

  transfer(req: TransferRequest): Promise<ProviderTransfer> {
    return this.own.transfer(req);
  }

  /** A devolução through API Pix, whichever API issued the charge: it returns a Pix received on the account. */
  returnPayment(req: PaymentReturnRequest): Promise<ProviderTransfer> {
    return this.returns.returnPayment(req);
  }

  /** The API Pix devolução of this refund; else a return the provider's own API made before the switch. */
  async getPaymentReturn(req: { reference: string; endToEndId: string }): Promise<ProviderTransfer | null> {
    return (await this.returns.findPaymentReturn(req)) ?? this.own.getPaymentReturn(req);
  }

  getTransferByReference(reference: string): Promise<ProviderTransfer | null> {
    return this.own.getTransferByReference(reference);
  }

  lookUpPixKey(key: string): Promise<PixKeyOwner | null> {
    return this.own.lookUpPixKey(key);
  }

  /** Payments as API Pix lists them (and those of charges issued before the switch); transfers from the provider's own statement. */
  async getStatement(range: { from: string; to: string }): Promise<ProviderStatement> {
    const [own, received] = await Promise.all([this.own.getStatement(range), receivedPayments(this.pixList, range)]);
    // The provider lists API Pix devoluções under their devolução id; ours is the refund's id.
    const transfers = own.transfers.map((t) => {
      const refundId = t.kind === 'RETURN' ? refundIdOfDevolucaoId(t.reference) : null;
      return refundId ? { ...t, reference: refundId } : t;
    });
    return { ...own, payments: mergedPayments(received, own.payments), transfers };
  }

  listInfractions(since: string): Promise<ProviderInfraction[]> {
    return this.own.listInfractions(since);
  }

  answerInfraction(
    id: string,
    answer: { decision: InfractionDecision; justification: string },
  ): Promise<ProviderInfraction> {
    return this.own.answerInfraction(id, answer);
  }

  issueBoleto(req: IssueBoletoRequest): Promise<ProviderBoleto> {
    return this.own.issueBoleto(req);
  }

  getBoleto(providerBoletoId: string): Promise<ProviderBoleto> {
    return this.own.getBoleto(providerBoletoId);
  }

  findBoletoByReference(reference: string): Promise<ProviderBoleto | null> {
    return this.own.findBoletoByReference(reference);
  }

  cancelBoleto(providerBoletoId: string): Promise<ProviderBoleto> {
    return this.own.cancelBoleto(providerBoletoId);
  }
}

/** A cob's txid as we derive it; the provider's own ids never have that shape. */
export function isCob(providerChargeId: string): boolean {
  return chargeIdOfTxid(providerChargeId) !== null;
}
