/**
 * MED through Efí (`GET /v2/gn/infracoes`, `POST /v2/gn/infracoes/{idInfracao}/defesa`), in the
 * gateway's terms (core/provider.ts InfractionProvider). `dadosAnalise.prazoFinalizacao` is the
 * deadline the merchant sees (activities/med/sync.ts keeps ours never later than it).
 */
import { pixAmountToCents } from '../../../core/pix/pixAmount';
import type {
  InfractionDecision,
  InfractionProvider,
  ProviderInfraction,
  ProviderInfractionStatus,
} from '../../../core/provider';
import type { EfiClient } from './efiClient';
import type { EfiInfraction, EfiInfractionStatus } from './infractionSchemas';

/** Without a deadline from Efí: the central bank's seven days from the opening. */
const DEFAULT_ANALYSIS_MS = 7 * 86_400_000;

/** Efí's tipoSituacao, in the words the gateway stores (core/provider.ts ProviderInfraction.reason). */
const REASONS: Readonly<Record<string, string>> = {
  golpe: 'SCAM',
  'aquisição da conta': 'ACCOUNT_TAKEOVER',
  coerção: 'COERCION',
  // The gateway's long-standing word for it (docs/api/med.md).
  'acesso fraudulento': 'FRAUD',
  outro: 'OTHER',
  desconhecido: 'UNKNOWN',
};

const STATUS: Record<EfiInfractionStatus, ProviderInfractionStatus> = {
  ABERTA: 'OPEN',
  // Our defence is in and Efí analyses it: it decides (ACEITA or REJEITADA) or cancels.
  EM_DEFESA: 'IN_DEFENCE',
  // Accepted by the account, or the claim upheld over its defence: the devolução is due.
  ACEITA: 'ACCEPTED',
  // The defence won.
  REJEITADA: 'REJECTED',
  // Cancelled by Efí: nothing is to be returned.
  CANCELADA_EFI: 'CANCELLED',
};

export class EfiInfractions implements InfractionProvider {
  constructor(
    private readonly client: EfiClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** Infractions opened at or after `since`, oldest first. */
  async listInfractions(since: string): Promise<ProviderInfraction[]> {
    const fim = new Date(this.now() + 60_000).toISOString();
    const found = await this.client.infractions({ inicio: since, fim });
    return found.map((i) => infractionOf(i, this.now())).sort((a, b) => a.openedAt.localeCompare(b.openedAt));
  }

  async answerInfraction(id: string, answer: { decision: InfractionDecision; justification: string }): Promise<void> {
    await this.client.defend(id, {
      analise: answer.decision === 'ACCEPT' ? 'aceito' : 'rejeitado',
      justificativa: answer.justification,
    });
  }
}

function infractionOf(i: EfiInfraction, nowMs: number): ProviderInfraction {
  const openedAt = i.dadosAnalise?.abertura ?? i.criadoEm ?? new Date(nowMs).toISOString();
  return {
    id: i.idInfracao,
    endToEndId: i.endToEndId,
    reference: null,
    amountCents: i.valor ? pixAmountToCents(i.valor) : null,
    reason: (i.tipoSituacao && REASONS[i.tipoSituacao]) ?? 'FRAUD',
    status: STATUS[i.status],
    openedAt,
    analysisDeadline:
      i.dadosAnalise?.prazoFinalizacao ?? new Date(Date.parse(openedAt) + DEFAULT_ANALYSIS_MS).toISOString(),
    decision: null,
    justification: null,
    answeredAt: null,
    closedAt: i.dadosAnalise?.finalizacao ?? null,
  };
}
