/**
 * The sweep for lost boleto notices on a connected merchant's own account (issue 37). A boleto
 * paid by barcode never appears in API Pix's GET /pix, so the Pix sweep cannot see it; Efí's API
 * Cobranças lists the billets paid on a day instead (listCharges, `status=paid&date_of=payment`).
 * Run by the same minute pass as the Pix sweep (pixSweep.ts), per active connection, and only when
 * the connection has a boleto still PENDING (an index-only look, migration 0042): an account with
 * none costs no PSP call. Each paid billet whose custom_id names such a charge goes through the
 * notice's own claim path (ProviderCallbackService.handleBoletoNotice, event
 * `boleto-notice:<merchant>:<charge>:sweep`), so settlement still credits only what the account's
 * record says (GET /v1/charge/:id), once, whichever of the notice and the sweep comes first.
 */
import { isoDateInBrasilia } from '../../core/boletos/pdf/format';
import { isPaidBoletoLister, type PspAccount } from '../../core/provider';
import { chargeStore, type CallbackOutcome, type MerchantScope, type ProviderCallbackService } from '../../db/charges';

/** The sweep's stand-in for Efí's notification token: one sweep claim per charge. */
export const BOLETO_SWEEP_TOKEN = 'sweep';

/** Our charge ids are UUIDs; anything else in a custom_id is not ours (and would not fit the column). */
const CHARGE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const DAY_MS = 86_400_000;

export interface BoletoSweepPass {
  /** Paid billets the account listed. */
  listed: number;
  /** Of them, our PENDING boletos: claimed now. */
  taken: number;
  outcomes: Partial<Record<CallbackOutcome, number>>;
}

/**
 * One connected account's pass: billets paid since the Brasília day `lookbackMs` before now (at
 * least yesterday, so a payment just before midnight is not missed) up to today.
 */
export async function sweepConnectedBoletos(
  claims: () => ProviderCallbackService,
  account: PspAccount,
  scope: MerchantScope,
  args: { nowMs: number; lookbackMs: number },
): Promise<BoletoSweepPass> {
  const none: BoletoSweepPass = { listed: 0, taken: 0, outcomes: {} };
  const connectionId = account.connectionId;
  if (!connectionId || !isPaidBoletoLister(account.boletos)) return none;
  if (!(await chargeStore.hasPendingBoletoAt(connectionId))) return none;
  const paid = await account.boletos.listPaidBoletos({
    fromDay: isoDateInBrasilia(new Date(args.nowMs - Math.max(args.lookbackMs, DAY_MS))),
    toDay: isoDateInBrasilia(new Date(args.nowMs)),
  });
  const ids = [...new Set(paid.map((b) => b.reference).filter((r): r is string => r !== null && CHARGE_ID.test(r)))];
  const pending = await chargeStore.pendingBoletosAt(connectionId, ids);
  const outcomes: BoletoSweepPass['outcomes'] = {};
  for (const charge of pending) {
    const outcome = await claims().handleBoletoNotice(charge.id, BOLETO_SWEEP_TOKEN, scope);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return { listed: paid.length, taken: pending.length, outcomes };
}
