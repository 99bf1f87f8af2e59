/**
 * The provider the gateway runs with: Pix charges over the BCB's API Pix (cobs, apiPixCharges.ts),
 * the Pix received on them (GET /pix, apiPixReceived.ts) and their devoluções (apiPixReturns.ts);
 * money out (transfers to a key, the statement's sends) and MED over the PSP's own send API
 * (`transfers`, `infractions`: Efí's, activities/provider/efi/); boletos, and the statement's
 * devoluções and boleto payments, over the bundled provider's own API (httpPixProvider.ts), which
 * no real PSP route covers yet. The DICT look-up exists only where the PSP offers one.
 *
 * Charges are routed by the shape of their provider id. A cob's id is its txid, the 32 hex digits
 * of our charge id (chargeIdOfTxid parses it); anything else (`sbx_ch_…`) is a charge issued
 * through the provider's own API before the switch, which keeps settling and closing there.
 */
import { chargeIdOfTxid } from '../../core/pix/apiPixIds';
import type {
  AccountBalanceProvider,
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
  TransferApi,
  TransferRequest,
} from '../../core/provider';
import { refundIdOfDevolucaoId } from '../../core/pix/apiPixIds';
import { ProviderError } from '../../core/provider';
import type { ApiPixCharges } from './apiPixCharges';
import type { ApiPixReturns } from './apiPixReturns';
import { mergedPayments, receivedPayments, receivedPix, type PixListClient } from './apiPixReceived';
import type { HttpPixProvider } from './httpPixProvider';

export interface RoutedPixProviderParts {
  cobs: ApiPixCharges;
  returns: ApiPixReturns;
  /** API Pix's list of received Pix (the statement's payments). */
  pixList: PixListClient;
  /**
   * The provider's own API (the bundled sandbox's), on the platform's account only: a merchant's
   * own connection (pspAccounts.ts) has none, so nothing of it is ever asked of the platform's.
   */
  own: HttpPixProvider | null;
  /** Money out: the PSP's send API (Efí's), or the own API's transfers (PIX_TRANSFERS_API=sandbox). */
  transfers: TransferApi;
  infractions: InfractionProvider;
  /** The DICT look-up, where the PSP offers one (the own API does; Efí does not). */
  directory: Pick<PixProvider, 'lookUpPixKey'> | null;
}

export class RoutedPixProvider
  implements
    PixProvider,
    BoletoProvider,
    StatementProvider,
    InfractionProvider,
    ReceivedPixProvider,
    AccountBalanceProvider
{
  private readonly cobs: ApiPixCharges;
  private readonly returns: ApiPixReturns;
  private readonly pixList: PixListClient;
  private readonly own: HttpPixProvider | null;
  private readonly transfers: TransferApi;
  private readonly infractions: InfractionProvider;
  readonly lookUpPixKey?: (key: string) => Promise<PixKeyOwner | null>;

  constructor(parts: RoutedPixProviderParts) {
    ({
      cobs: this.cobs,
      returns: this.returns,
      pixList: this.pixList,
      own: this.own,
      transfers: this.transfers,
      infractions: this.infractions,
    } = parts);
    const lookUp = parts.directory?.lookUpPixKey;
    if (lookUp) this.lookUpPixKey = (key) => lookUp.call(parts.directory, key);
  }

  issueCharge(req: IssueChargeRequest): Promise<ProviderCharge> {
    return this.cobs.issueCharge(req);
  }

  getCharge(providerChargeId: string): Promise<ProviderCharge> {
    return isCob(providerChargeId) ? this.cobs.getCharge(providerChargeId) : this.ownApi().getCharge(providerChargeId);
  }

  /** The cob of our charge id; else a charge the provider's own API issued for it before the switch. */
  async findChargeByReference(reference: string): Promise<ProviderCharge | null> {
    return (await this.cobs.findChargeByReference(reference)) ?? this.own?.findChargeByReference(reference) ?? null;
  }

  closeCharge(providerChargeId: string, reason: 'EXPIRED' | 'CANCELLED'): Promise<ProviderCharge> {
    return isCob(providerChargeId)
      ? this.cobs.closeCharge(providerChargeId, reason)
      : this.ownApi().closeCharge(providerChargeId, reason);
  }

  /** API Pix's GET /pix: every Pix received on the account, ours or not. */
  listReceivedPix(range: { from: string; to: string }): Promise<ReceivedPix[]> {
    return receivedPix(this.pixList, range);
  }

  transfer(req: TransferRequest): Promise<ProviderTransfer> {
    return this.transfers.transfer(req);
  }

  /** A devolução through API Pix, whichever API issued the charge: it returns a Pix received on the account. */
  returnPayment(req: PaymentReturnRequest): Promise<ProviderTransfer> {
    return this.returns.returnPayment(req);
  }

  /** The API Pix devolução of this refund; else a return the provider's own API made before the switch. */
  async getPaymentReturn(req: { reference: string; endToEndId: string }): Promise<ProviderTransfer | null> {
    return (await this.returns.findPaymentReturn(req)) ?? this.own?.getPaymentReturn(req) ?? null;
  }

  getTransferByReference(reference: string): Promise<ProviderTransfer | null> {
    return this.transfers.getTransferByReference(reference);
  }

  /** The PSP account's balance; null where the send API does not tell it (the own API). */
  async accountBalanceCents(): Promise<number | null> {
    return this.transfers.balanceCents ? this.transfers.balanceCents() : null;
  }

  /**
   * Payments as API Pix lists them (and those of charges issued before the switch); sends from
   * the send API's statement; devoluções from the provider's own statement (the standard lists
   * them only under the Pix they return, not by day).
   */
  async getStatement(range: { from: string; to: string }): Promise<ProviderStatement> {
    const [own, received, sent] = await Promise.all([
      this.own ? this.own.getStatement(range) : { from: range.from, to: range.to, payments: [], transfers: [] },
      receivedPayments(this.pixList, range),
      this.transfers.sentBetween(range),
    ]);
    // The provider lists API Pix devoluções under their devolução id; ours is the refund's id.
    const returns = own.transfers.flatMap((t) => {
      const refundId = t.kind === 'RETURN' ? refundIdOfDevolucaoId(t.reference) : null;
      return refundId ? [{ ...t, reference: refundId }] : t.kind === 'RETURN' ? [t] : [];
    });
    return { ...own, payments: mergedPayments(received, own.payments), transfers: [...returns, ...sent] };
  }

  listInfractions(since: string): Promise<ProviderInfraction[]> {
    return this.infractions.listInfractions(since);
  }

  answerInfraction(id: string, answer: { decision: InfractionDecision; justification: string }): Promise<unknown> {
    return this.infractions.answerInfraction(id, answer);
  }

  issueBoleto(req: IssueBoletoRequest): Promise<ProviderBoleto> {
    return this.ownApi().issueBoleto(req);
  }

  getBoleto(providerBoletoId: string): Promise<ProviderBoleto> {
    return this.ownApi().getBoleto(providerBoletoId);
  }

  findBoletoByReference(reference: string): Promise<ProviderBoleto | null> {
    return this.ownApi().findBoletoByReference(reference);
  }

  cancelBoleto(providerBoletoId: string): Promise<ProviderBoleto> {
    return this.ownApi().cancelBoleto(providerBoletoId);
  }

  /**
   * The own API, or the refusal of an account that has none (a merchant's own connection): boletos
   * and charges issued before API Pix exist only on the platform's account.
   */
  private ownApi(): HttpPixProvider {
    if (this.own) return this.own;
    throw new ProviderError(
      'this PSP account is reached through API Pix and the send API only: no boleto nor pre-API Pix charge lives there',
      'NOT_ON_THIS_ACCOUNT',
      false,
      404,
    );
  }
}

/** A cob's txid as we derive it; the provider's own ids never have that shape. */
export function isCob(providerChargeId: string): boolean {
  return chargeIdOfTxid(providerChargeId) !== null;
}
