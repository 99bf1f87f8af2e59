/**
 * The Pix Automático wire (recSchemas.ts, recRequests.ts) to and from the gateway's words
 * (core/pixAutomatico/types.ts), with the tables of core/pixAutomatico/wireNames.ts. Pure.
 */
import { ProviderError } from '../../../core/provider';
import { centsToPixAmount, pixAmountToCents } from '../../../core/pix/pixAmount';
import type {
  CreateRecurrenceRequest,
  ProviderAuthorizationRequest,
  ProviderCycleCharge,
  ProviderRecurrence,
  ProviderRecurrenceLocation,
} from '../../../core/pixAutomatico/types';
import {
  ATTEMPT_KIND_FROM_WIRE,
  ATTEMPT_STATUS_FROM_WIRE,
  COBR_STATUS_FROM_WIRE,
  JOURNEY_FROM_WIRE,
  PARTY_FROM_WIRE,
  PERIOD_FROM_WIRE,
  PERIOD_TO_WIRE,
  REC_STATUS_FROM_WIRE,
  RETRY_POLICY_FROM_WIRE,
  RETRY_POLICY_TO_WIRE,
  SOLICREC_STATUS_FROM_WIRE,
} from '../../../core/pixAutomatico/wireNames';
import { PixApiErrorCodes } from './errors';
import type { RecRequest } from './recRequests';
import type { CobR, LocRec, Rec, SolicRec } from './recSchemas';

/** Cents as API Pix writes them; a value that is no Pix amount is our bug, not sent. */
export function amountOf(cents: number, what: string): string {
  try {
    return centsToPixAmount(cents);
  } catch {
    throw new ProviderError(
      `API Pix request not sent: ${what} is no Pix amount`,
      PixApiErrorCodes.invalidRequest,
      false,
    );
  }
}

/** Our request in the standard's words (RecSolicitada); checked by recRequestSchema after. */
export function recRequestOf(req: CreateRecurrenceRequest): RecRequest {
  const { debtor } = req;
  let valor: RecRequest['valor'];
  if (req.amountCents !== null) valor = { valorRec: amountOf(req.amountCents, 'amountCents') };
  else if (req.minimumAmountCents != null)
    valor = { valorMinimoRecebedor: amountOf(req.minimumAmountCents, 'minimumAmountCents') };
  return {
    vinculo: {
      contrato: req.contract,
      devedor:
        debtor.documentType === 'CPF'
          ? { cpf: debtor.document, nome: debtor.name }
          : { cnpj: debtor.document, nome: debtor.name },
      objeto: req.object,
    },
    calendario: {
      dataInicial: req.firstDueDate,
      ...(req.lastDueDate ? { dataFinal: req.lastDueDate } : {}),
      periodicidade: PERIOD_TO_WIRE[req.period],
    },
    ...(valor ? { valor } : {}),
    politicaRetentativa: RETRY_POLICY_TO_WIRE[req.retryPolicy],
    ...(req.locationId != null ? { loc: req.locationId } : {}),
    ...(req.firstChargeTxid ? { ativacao: { dadosJornada: { txid: req.firstChargeTxid } } } : {}),
  };
}

export function toLocation(loc: LocRec): ProviderRecurrenceLocation {
  return { id: loc.id, url: loc.location, createdAt: loc.criacao, idRec: loc.idRec ?? null };
}

export function toRecurrence(rec: Rec): ProviderRecurrence {
  const devedor = rec.vinculo.devedor;
  const journey = rec.ativacao?.tipoJornada ?? rec.ativacao?.dadosJornada?.tipoJornada;
  const { rejeicao, cancelamento } = rec.encerramento ?? {};
  return {
    idRec: rec.idRec,
    contract: rec.vinculo.contrato,
    object: rec.vinculo.objeto ?? null,
    debtor: !devedor
      ? null
      : 'cpf' in devedor
        ? { documentType: 'CPF', document: devedor.cpf, name: devedor.nome }
        : { documentType: 'CNPJ', document: devedor.cnpj, name: devedor.nome },
    status: REC_STATUS_FROM_WIRE[rec.status],
    firstDueDate: rec.calendario.dataInicial,
    lastDueDate: rec.calendario.dataFinal ?? null,
    period: PERIOD_FROM_WIRE[rec.calendario.periodicidade],
    amountCents: rec.valor?.valorRec !== undefined ? pixAmountToCents(rec.valor.valorRec) : null,
    minimumAmountCents:
      rec.valor?.valorMinimoRecebedor !== undefined ? pixAmountToCents(rec.valor.valorMinimoRecebedor) : null,
    retryPolicy: rec.politicaRetentativa ? RETRY_POLICY_FROM_WIRE[rec.politicaRetentativa] : null,
    journey: journey ? JOURNEY_FROM_WIRE[journey] : null,
    firstChargeTxid: rec.ativacao?.dadosJornada?.txid ?? null,
    location: rec.loc ? toLocation(rec.loc) : null,
    payerIspb: rec.pagador?.ispbParticipante ?? null,
    qrCode:
      rec.dadosQR?.jornada && rec.dadosQR.pixCopiaECola
        ? { journey: JOURNEY_FROM_WIRE[rec.dadosQR.jornada], copyPaste: rec.dadosQR.pixCopiaECola }
        : null,
    ending: cancelamento
      ? { kind: 'CANCELLED', code: cancelamento.codigo, by: PARTY_FROM_WIRE[cancelamento.solicitante] }
      : rejeicao
        ? { kind: 'REJECTED', code: rejeicao.codigo, by: null }
        : null,
  };
}

export function toAuthorizationRequest(solic: SolicRec): ProviderAuthorizationRequest {
  return {
    id: solic.idSolicRec,
    idRec: solic.idRec,
    status: SOLICREC_STATUS_FROM_WIRE[solic.status],
    expiresAt: solic.calendario.dataExpiracaoSolicitacao,
  };
}

export function toCycleCharge(cobr: CobR): ProviderCycleCharge {
  const { rejeicao, cancelamento } = cobr.encerramento ?? {};
  return {
    txid: cobr.txid,
    idRec: cobr.idRec,
    status: COBR_STATUS_FROM_WIRE[cobr.status],
    dueDate: cobr.calendario.dataDeVencimento,
    amountCents: pixAmountToCents(cobr.valor.original),
    retryPolicy: cobr.politicaRetentativa ? RETRY_POLICY_FROM_WIRE[cobr.politicaRetentativa] : null,
    attempts: (cobr.tentativas ?? []).map((t) => ({
      settlementDate: t.dataLiquidacao,
      kind: ATTEMPT_KIND_FROM_WIRE[t.tipo],
      status: ATTEMPT_STATUS_FROM_WIRE[t.status],
      endToEndId: t.endToEndId ?? null,
      rejectionCode: t.rejeicao?.codigo ?? null,
    })),
    rejectionCode: rejeicao?.codigo ?? null,
    cancellation: cancelamento ? { by: PARTY_FROM_WIRE[cancelamento.solicitante], code: cancelamento.codigo } : null,
    payments: (cobr.pix ?? []).map((p) => ({
      endToEndId: p.endToEndId,
      amountCents: pixAmountToCents(p.valor),
      paidAt: p.horario,
    })),
  };
}
