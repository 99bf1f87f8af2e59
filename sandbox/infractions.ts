/**
 * Pix infractions (MED) as the PSP relays them from the central bank's DICT: opened against a
 * received Pix payment, a paid charge or a boleto paid by its Pix (a test control, or at random on payment with probability openInfractionRate),
 * listed by the gateway's sync (GET /v1/infractions?since=), answered once by the gateway
 * (POST /v1/infractions/{id}/analysis: the first answer is recorded; the same answer again is a
 * replay, a different one is 409 INFRACTION_ALREADY_ANSWERED).
 */
import type { InfractionDecision, ProviderInfraction } from '../core/provider';
import { randomAlphanumeric } from '../core/pix/random';
import type { SandboxContext } from './context';
import { SandboxHttpError } from './errors';
import { findReceivedPixPayment, knownPayable } from './receivedPayments';

/** How long the receiving PSP has to analyse an infraction (the central bank's rule: 7 days). */
export const ANALYSIS_WINDOW_MS = 7 * 86_400_000;

export function openInfraction(
  ctx: SandboxContext,
  idOrReference: string,
  input: { amountCents?: number; reason?: string; deadlineSeconds?: number },
): ProviderInfraction {
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
  const infraction: ProviderInfraction = {
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

export function listInfractions(ctx: SandboxContext, since: Date | null): ProviderInfraction[] {
  return [...ctx.state.infractions.values()]
    .filter((i) => !since || Date.parse(i.openedAt) >= since.getTime())
    .sort((a, b) => a.openedAt.localeCompare(b.openedAt) || a.id.localeCompare(b.id));
}

export function getInfraction(ctx: SandboxContext, id: string): ProviderInfraction {
  const infraction = ctx.state.infractions.get(id);
  if (!infraction) throw new SandboxHttpError(404, 'INFRACTION_NOT_FOUND', `infraction ${id} not found`);
  return infraction;
}

export function answerInfraction(
  ctx: SandboxContext,
  id: string,
  answer: { decision: InfractionDecision; justification: string },
): ProviderInfraction {
  const infraction = getInfraction(ctx, id);
  if (infraction.decision) {
    if (infraction.decision === answer.decision && infraction.justification === answer.justification) return infraction;
    throw new SandboxHttpError(409, 'INFRACTION_ALREADY_ANSWERED', 'this infraction was already answered', {
      decision: infraction.decision,
    });
  }
  Object.assign(infraction, {
    decision: answer.decision,
    justification: answer.justification,
    status: answer.decision === 'ACCEPT' ? 'ACCEPTED' : 'REJECTED',
    answeredAt: ctx.now().toISOString(),
  } satisfies Partial<ProviderInfraction>);
  ctx.journal.infraction(infraction);
  return infraction;
}
