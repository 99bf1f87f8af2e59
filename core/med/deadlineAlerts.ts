/**
 * When a MED case's merchant is alerted before the deadline (the PSP's, Efí's
 * `dadosAnalise.prazoFinalizacao`): 48, 24 and 6 hours before it, as PayZu does
 * (../shared/spec/med-2.md). Pure: the medInfraction workflow plans its timers with it.
 *
 * A case read late (the sync learns of it with less than 48 hours left, or a test's short window)
 * does not get a burst of stale alerts: of the alerts whose time has already passed when the
 * workflow starts, only the nearest one (the smallest lead that is still ≥ the time left) is sent,
 * at once; the earlier ones are skipped; the later ones go at their time. So a case read with 5 h
 * left gets only the 6 h alert, one read with 30 h left gets the 48 h alert at once and then the
 * 24 h and 6 h ones, and one read after its deadline gets none.
 */
export const MED_ALERT_HOURS = [48, 24, 6] as const;
export type MedAlertHours = (typeof MED_ALERT_HOURS)[number];

const HOUR_MS = 3_600_000;

/**
 * How long before the PSP's deadline an unanswered case is answered for the merchant: the PSP
 * refuses a defence after its deadline (Efí and the sandbox: 422 "O prazo para defesa foi
 * excedido"), so the answer goes a little before it: 15 minutes, or a tenth of the window when
 * the window is short (tests).
 */
export const ANSWER_LEAD_MS = 15 * 60_000;

export function answerAtMs(deadlineMs: number, startMs: number): number {
  return deadlineMs - Math.max(0, Math.min(ANSWER_LEAD_MS, Math.floor((deadlineMs - startMs) / 10)));
}

export interface PlannedAlert {
  hoursLeft: MedAlertHours;
  /** When it is due (epoch ms); at or before `now`: send at once. */
  atMs: number;
}

export function plannedAlerts(deadlineMs: number, nowMs: number): PlannedAlert[] {
  if (nowMs >= deadlineMs) return [];
  const all = MED_ALERT_HOURS.map((hoursLeft) => ({ hoursLeft, atMs: deadlineMs - hoursLeft * HOUR_MS }));
  const passed = all.filter((a) => a.atMs <= nowMs);
  const upcoming = all.filter((a) => a.atMs > nowMs);
  // The hours are in decreasing order: the last passed one is the nearest to the deadline.
  return passed.length ? [passed[passed.length - 1], ...upcoming] : upcoming;
}

/** The e-mail to the merchant's owners: the case, its deadline, and what to do (never a secret). */
export function deadlineAlertMail(c: {
  infractionId: string;
  hoursLeft: number;
  deadlineAt: Date;
  disputedAmountCents: number;
  endToEndId: string;
}): { subject: string; text: string } {
  const amount = `R$ ${(c.disputedAmountCents / 100).toFixed(2).replace('.', ',')}`;
  const deadline = `${c.deadlineAt.toISOString().replace(/\.\d{3}Z$/, 'Z')} (UTC)`;
  return {
    subject: `MED: ${c.hoursLeft} h left to answer the Pix infraction ${c.infractionId}`,
    text: [
      `A Pix infraction (MED) disputes ${amount} of the payment ${c.endToEndId}.`,
      `The provider's deadline is ${deadline}, about ${c.hoursLeft} hours from now.`,
      '',
      'Send your defence (text and evidence files) with POST /med/infractions/' +
        `${c.infractionId}/defence, or decide it with POST /med/infractions/${c.infractionId}/analysis.`,
      'With no answer by the deadline, the case is answered for you: with your stored defence if there is one, else accepted (the amount is returned to the payer).',
    ].join('\n'),
  };
}
