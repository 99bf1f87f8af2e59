/**
 * Pix infractions (MED) as the PSP relays them from the central bank's DICT: opened against a
 * received Pix payment, a paid charge or a boleto paid by its Pix (a test control, or at random on payment with probability openInfractionRate),
 * listed by the gateway's sync (GET /v1/infractions?since=), answered once by the gateway
 * (POST /v1/infractions/{id}/analysis: the first answer is recorded; the same answer again is a
 * replay, a different one is 409 INFRACTION_ALREADY_ANSWERED).
 *
 * MED 2.0: the receiving PSP decides a defended case. ACCEPT closes it at once (ACCEPTED: the
 * account gives the money back); REJECT leaves it IN_DEFENCE until the PSP decides it
 * (decideInfraction, a test control): UPHELD → ACCEPTED (the devolução is due), DISMISSED →
 * REJECTED (the defence won); it may also cancel an open or defended case (CANCELLED). A case
 * opened with `decideAfterSeconds` and `outcome` is decided so by itself once that time has passed
 * (UPHELD and DISMISSED once it is in defence too), looked at whenever infractions are read, so
 * the sandbox's clock, not a timer, decides when.
 */
import type { InfractionDecision, ProviderInfraction, ProviderInfractionStatus } from '../core/provider';
import { randomAlphanumeric } from '../core/pix/random';
import type { SandboxContext } from './context';
import { SandboxHttpError } from './errors';
import { findReceivedPixPayment, knownPayable } from './receivedPayments';

/** How long the receiving PSP has to analyse an infraction (the central bank's rule: 7 days). */
export const ANALYSIS_WINDOW_MS = 7 * 86_400_000;

/** What the PSP decides of a case: the claim upheld, dismissed (the defence won), or the case cancelled. */
export type PspOutcome = 'UPHELD' | 'DISMISSED' | 'CANCELLED';
const OUTCOME_STATUS: Record<PspOutcome, ProviderInfractionStatus> = {
  UPHELD: 'ACCEPTED',
  DISMISSED: 'REJECTED',
  CANCELLED: 'CANCELLED',
};

/** The record the sandbox keeps (and journals): the provider's view, plus a decision it will take by itself. */
export interface SandboxInfraction extends ProviderInfraction {
  autoDecision?: { outcome: PspOutcome; at: string } | null;
  /** What the PSP decided, when it did (not the account's own ACCEPT). */
  pspOutcome?: PspOutcome | null;
}

/** The provider's view of a case (GET /v1/infractions…): the sandbox's own plan for it left out. */
export function providerView(i: SandboxInfraction): ProviderInfraction {
  const { autoDecision: _plan, pspOutcome: _outcome, ...view } = i;
  return { ...view, closedAt: i.closedAt ?? null };
}

const isClosed = (i: ProviderInfraction) =>
  i.status === 'ACCEPTED' || i.status === 'REJECTED' || i.status === 'CANCELLED';

export function openInfraction(
  ctx: SandboxContext,
  idOrReference: string,
  input: {
    amountCents?: number;
    reason?: string;
    deadlineSeconds?: number;
    decideAfterSeconds?: number;
    outcome?: PspOutcome;
  },
): SandboxInfraction {
  const payment = findReceivedPixPayment(ctx, idOrReference);
  if (!payment) {
    if (!knownPayable(ctx, idOrReference))
      throw new SandboxHttpError(404, 'CHARGE_NOT_FOUND', `charge ${idOrReference} not found`);
    throw new SandboxHttpError(
      409,
      'CHARGE_NOT_PAID',
      'only a Pix payment received can be disputed (a paid charge, or a boleto paid by its Pix)',
    );
  }
  const amountCents = input.amountCents ?? payment.amountCents;
  if (amountCents > payment.amountCents)
    throw new SandboxHttpError(
      400,
      'VALIDATION_ERROR',
      `amountCents must not exceed the paid amount (${payment.amountCents})`,
    );
  const now = ctx.now();
  const infraction: SandboxInfraction = {
    id: `sbx_inf_${randomAlphanumeric(20)}`,
    endToEndId: payment.endToEndId,
    reference: payment.reference,
    amountCents,
    reason: input.reason ?? 'FRAUD',
    status: 'OPEN',
    openedAt: now.toISOString(),
    analysisDeadline: new Date(
      now.getTime() + (input.deadlineSeconds !== undefined ? input.deadlineSeconds * 1000 : ANALYSIS_WINDOW_MS),
    ).toISOString(),
    decision: null,
    justification: null,
    answeredAt: null,
    closedAt: null,
    autoDecision:
      input.decideAfterSeconds !== undefined && input.outcome
        ? {
            outcome: input.outcome,
            at: new Date(now.getTime() + input.decideAfterSeconds * 1000).toISOString(),
          }
        : null,
  };
  ctx.state.infractions.set(infraction.id, infraction);
  ctx.journal.infraction(infraction);
  ctx.logger.info({ infractionId: infraction.id, paymentId: payment.providerId, amountCents }, 'infraction opened');
  return infraction;
}

/** On each payment: opens an infraction for the whole amount with probability `rate` (0 = never). */
export function maybeOpenInfraction(ctx: SandboxContext, chargeId: string, rate: number, random: () => number): void {
  if (rate > 0 && random() < rate) openInfraction(ctx, chargeId, {});
}

export function listInfractions(ctx: SandboxContext, since: Date | null): SandboxInfraction[] {
  decideDueInfractions(ctx);
  return [...ctx.state.infractions.values()]
    .filter((i) => !since || Date.parse(i.openedAt) >= since.getTime())
    .sort((a, b) => a.openedAt.localeCompare(b.openedAt) || a.id.localeCompare(b.id));
}

export function getInfraction(ctx: SandboxContext, id: string): SandboxInfraction {
  decideDueInfractions(ctx);
  const infraction = ctx.state.infractions.get(id);
  if (!infraction) throw new SandboxHttpError(404, 'INFRACTION_NOT_FOUND', `infraction ${id} not found`);
  return infraction;
}

export function answerInfraction(
  ctx: SandboxContext,
  id: string,
  answer: { decision: InfractionDecision; justification: string },
): SandboxInfraction {
  const infraction = getInfraction(ctx, id);
  if (infraction.status === 'CANCELLED' && !infraction.decision)
    throw new SandboxHttpError(409, 'INFRACTION_CLOSED', 'this infraction was cancelled by the PSP', {
      status: infraction.status,
    });
  if (infraction.decision) {
    if (infraction.decision === answer.decision && infraction.justification === answer.justification) return infraction;
    throw new SandboxHttpError(409, 'INFRACTION_ALREADY_ANSWERED', 'this infraction was already answered', {
      decision: infraction.decision,
    });
  }
  Object.assign(infraction, {
    decision: answer.decision,
    justification: answer.justification,
    // An account that accepts closes the case; a defence is for the PSP to decide.
    status: answer.decision === 'ACCEPT' ? 'ACCEPTED' : 'IN_DEFENCE',
    answeredAt: ctx.now().toISOString(),
    closedAt: answer.decision === 'ACCEPT' ? ctx.now().toISOString() : null,
  } satisfies Partial<ProviderInfraction>);
  ctx.journal.infraction(infraction);
  return infraction;
}

/**
 * The PSP decides a case: UPHELD or DISMISSED a case in defence, CANCELLED one open or in defence.
 * The same outcome again is a replay; anything else on a closed case, or UPHELD/DISMISSED before a
 * defence, is 409.
 */
export function decideInfraction(ctx: SandboxContext, id: string, outcome: PspOutcome): SandboxInfraction {
  const infraction = getInfraction(ctx, id);
  return decide(ctx, infraction, outcome);
}

function decide(ctx: SandboxContext, infraction: SandboxInfraction, outcome: PspOutcome): SandboxInfraction {
  const status = OUTCOME_STATUS[outcome];
  if (isClosed(infraction)) {
    if (infraction.pspOutcome === outcome) return infraction;
    throw new SandboxHttpError(409, 'INFRACTION_CLOSED', `this infraction is closed (${infraction.status})`, {
      status: infraction.status,
    });
  }
  if (outcome !== 'CANCELLED' && infraction.status !== 'IN_DEFENCE')
    throw new SandboxHttpError(409, 'INFRACTION_NOT_IN_DEFENCE', 'only a defended infraction is upheld or dismissed', {
      status: infraction.status,
    });
  Object.assign(infraction, {
    status,
    pspOutcome: outcome,
    closedAt: ctx.now().toISOString(),
    autoDecision: null,
  } satisfies Partial<SandboxInfraction>);
  ctx.journal.infraction(infraction);
  ctx.logger.info({ infractionId: infraction.id, outcome }, 'infraction decided by the PSP');
  return infraction;
}

/** Applies every planned decision whose time has come (UPHELD and DISMISSED wait for a defence; a closed case drops its plan). */
export function decideDueInfractions(ctx: SandboxContext): void {
  const now = ctx.now().getTime();
  for (const infraction of ctx.state.infractions.values()) {
    const plan = infraction.autoDecision;
    if (!plan || Date.parse(plan.at) > now) continue;
    if (isClosed(infraction)) {
      infraction.autoDecision = null;
      ctx.journal.infraction(infraction);
    } else if (plan.outcome === 'CANCELLED' || infraction.status === 'IN_DEFENCE')
      decide(ctx, infraction, plan.outcome);
  }
}
