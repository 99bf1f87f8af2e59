/**
 * The PSP's Pix Automático notifications (`PUT /webhookrec` → POST `{recs: […]}` to `<url>/rec`;
 * `PUT /webhookcobr` → POST `{cobsr: […]}` to `<url>/cobr`) read as claims: which recurrence or
 * cycle charge to look at, and what the notification says happened. Never trusted: anyone who
 * learns the URL can post one, so the gateway acts only on what `GET /rec/{idRec}` and
 * `GET /cobr/{txid}` answer. The claimed status is a hint for logs and ordering, nothing more.
 *
 * Lenient where the body is not ours to fix: an item that names no valid id is counted in
 * `ignored` and skipped, the others are read; an id named twice is claimed once (the last
 * status wins). Only a body that is not an object with the array is refused (null), which the
 * route answers 400. Pure.
 */
import { z } from 'zod';
import { COBR_STATUS_FROM_WIRE, REC_STATUS_FROM_WIRE, type WireCobRStatus, type WireRecStatus } from './wireNames';
import type { ProviderCycleChargeStatus, ProviderRecurrenceStatus } from './types';

export const ID_REC = /^[a-zA-Z0-9]{29}$/;
export const COBR_TXID = /^[a-zA-Z0-9]{26,35}$/;
/** One webhook call carries a batch; more than this is no PSP's batch but a flood. */
const MAX_ITEMS = 1000;

export interface RecurrenceClaim {
  idRec: string;
  claimedStatus: ProviderRecurrenceStatus | null;
}

export interface CycleChargeClaim {
  txid: string;
  idRec: string | null;
  claimedStatus: ProviderCycleChargeStatus | null;
}

export interface Claims<T> {
  claims: T[];
  ignored: number;
}

const recItem = z.object({
  idRec: z.string().regex(ID_REC),
  status: z.string().optional(),
});

const cobrItem = z.object({
  txid: z.string().regex(COBR_TXID),
  idRec: z.string().optional(),
  status: z.string().optional(),
});

/** `{recs: […]}` → one claim per recurrence named; null when the body is not such an object. */
export function recurrenceClaimsOf(body: unknown): Claims<RecurrenceClaim> | null {
  const items = arrayOf(body, 'recs');
  if (!items) return null;
  const byId = new Map<string, RecurrenceClaim>();
  let ignored = 0;
  for (const item of items) {
    const parsed = recItem.safeParse(item);
    if (!parsed.success) {
      ignored++;
      continue;
    }
    const { idRec, status } = parsed.data;
    byId.delete(idRec);
    byId.set(idRec, { idRec, claimedStatus: known(REC_STATUS_FROM_WIRE, status as WireRecStatus | undefined) });
  }
  return { claims: [...byId.values()], ignored };
}

/** `{cobsr: […]}` → one claim per cycle charge named; null when the body is not such an object. */
export function cycleChargeClaimsOf(body: unknown): Claims<CycleChargeClaim> | null {
  const items = arrayOf(body, 'cobsr');
  if (!items) return null;
  const byTxid = new Map<string, CycleChargeClaim>();
  let ignored = 0;
  for (const item of items) {
    const parsed = cobrItem.safeParse(item);
    if (!parsed.success) {
      ignored++;
      continue;
    }
    const { txid, idRec, status } = parsed.data;
    byTxid.delete(txid);
    byTxid.set(txid, {
      txid,
      idRec: idRec !== undefined && ID_REC.test(idRec) ? idRec : null,
      claimedStatus: known(COBR_STATUS_FROM_WIRE, status as WireCobRStatus | undefined),
    });
  }
  return { claims: [...byTxid.values()], ignored };
}

function arrayOf(body: unknown, key: string): unknown[] | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const items = (body as Record<string, unknown>)[key];
  if (!Array.isArray(items) || items.length > MAX_ITEMS) return null;
  return items;
}

function known<K extends string, V>(table: Record<K, V>, wire: K | undefined): V | null {
  // Own keys only: a status named "constructor" must not reach Object.prototype.
  return wire !== undefined && Object.hasOwn(table, wire) ? table[wire] : null;
}
