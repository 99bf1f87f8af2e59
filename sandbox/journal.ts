/**
 * The sandbox's state on disk: an append-only journal of JSON lines, one per change, replayed
 * (last write wins) and compacted when the sandbox starts. A PSP never forgets a charge it
 * issued, so neither does the sandbox across restarts. Writes are synchronous, so a change is
 * on disk before the answer that reports it leaves the process. Faults and the callback log
 * stay in memory: they describe this run, not the provider's records. Boletos are kept like charges;
 * so are API Pix cobs (charges with their cob fields), devoluções and webhook registrations, and
 * the Pix sent through Efí's route with the balance adjustment a test set, and the accounts made by
 * POST /sandbox/accounts (their client secret as a hash only) with their Split Pix configurations.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ProviderTransfer } from '../core/provider';
import type { SandboxAccount } from './accounts';
import type { SandboxInfraction } from './infractions';
import type {
  BoletoRecord,
  ChargeRecord,
  DevolucaoRecord,
  EfiSendRecord,
  IdempotencyEntry,
  PixWebhookRecord,
  SandboxState,
  SplitConfigRecord,
  TransferReferenceStats,
} from './state';

export interface SandboxJournal {
  charge(rec: ChargeRecord): void;
  chargeKey(key: string, entry: IdempotencyEntry): void;
  boleto(rec: BoletoRecord): void;
  boletoKey(key: string, entry: IdempotencyEntry): void;
  transfer(transfer: ProviderTransfer): void;
  transferKey(key: string, entry: IdempotencyEntry): void;
  transferStats(reference: string, stats: TransferReferenceStats): void;
  infraction(infraction: SandboxInfraction): void;
  devolucao(devolucao: DevolucaoRecord): void;
  pixWebhook(webhook: PixWebhookRecord): void;
  pixWebhookRemoved(chave: string): void;
  efiSend(send: EfiSendRecord): void;
  efiBalanceAdjustment(cents: number): void;
  account(account: SandboxAccount): void;
  splitConfig(config: SplitConfigRecord): void;
}

type Line =
  | { kind: 'charge'; value: ChargeRecord }
  | { kind: 'chargeKey'; key: string; value: IdempotencyEntry }
  | { kind: 'boleto'; value: BoletoRecord }
  | { kind: 'boletoKey'; key: string; value: IdempotencyEntry }
  | { kind: 'transfer'; value: ProviderTransfer }
  | { kind: 'transferKey'; key: string; value: IdempotencyEntry }
  | { kind: 'transferStats'; key: string; value: TransferReferenceStats }
  | { kind: 'infraction'; value: SandboxInfraction }
  | { kind: 'devolucao'; value: DevolucaoRecord }
  | { kind: 'pixWebhook'; value: PixWebhookRecord }
  | { kind: 'pixWebhookRemoved'; key: string }
  | { kind: 'efiSend'; value: EfiSendRecord }
  | { kind: 'efiBalanceAdjustment'; value: number }
  | { kind: 'account'; value: SandboxAccount }
  | { kind: 'splitConfig'; value: SplitConfigRecord };

/** Keeps nothing: for tests that want a throwaway provider. */
export const memoryJournal: SandboxJournal = {
  charge: () => undefined,
  chargeKey: () => undefined,
  boleto: () => undefined,
  boletoKey: () => undefined,
  transfer: () => undefined,
  transferKey: () => undefined,
  transferStats: () => undefined,
  infraction: () => undefined,
  devolucao: () => undefined,
  pixWebhook: () => undefined,
  pixWebhookRemoved: () => undefined,
  efiSend: () => undefined,
  efiBalanceAdjustment: () => undefined,
  account: () => undefined,
  splitConfig: () => undefined,
};

/** Writes that record no money: a request's count, an idempotency key, a webhook's registration. */
const NO_MONEY: ReadonlySet<keyof SandboxJournal> = new Set<keyof SandboxJournal>([
  'transferStats',
  'chargeKey',
  'boletoKey',
  'transferKey',
  'pixWebhook',
  'pixWebhookRemoved',
]);

/**
 * `journal`, each write of a record that holds money also counting a change of `state` (its
 * revision), so the balances kept between reads (balances.ts) are summed again after it.
 */
export function revisingJournal(journal: SandboxJournal, state: SandboxState): SandboxJournal {
  const revising = {} as Record<keyof SandboxJournal, (...args: never[]) => void>;
  for (const name of Object.keys(journal) as Array<keyof SandboxJournal>) {
    const write = journal[name] as (...args: never[]) => void;
    revising[name] = NO_MONEY.has(name)
      ? write
      : (...args) => {
          state.revision++;
          write(...args);
        };
  }
  return revising as unknown as SandboxJournal;
}

/** Loads `file` into `state` (creating it when missing), compacts it, and appends from then on. */
export function openFileJournal(file: string, state: SandboxState, logger: Logger): SandboxJournal {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const skipped = load(file, state);
  if (skipped > 0)
    logger.warn({ file, skipped }, 'sandbox state: skipped unreadable lines (a write cut short by a crash)');
  compact(file, state);
  logger.info(
    { file, charges: state.charges.size, boletos: state.boletos.size, transfers: state.transfers.size },
    'sandbox state loaded',
  );
  const append = (line: Line) => fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  return {
    charge: (value) => append({ kind: 'charge', value }),
    chargeKey: (key, value) => append({ kind: 'chargeKey', key, value }),
    boleto: (value) => append({ kind: 'boleto', value }),
    boletoKey: (key, value) => append({ kind: 'boletoKey', key, value }),
    transfer: (value) => append({ kind: 'transfer', value }),
    transferKey: (key, value) => append({ kind: 'transferKey', key, value }),
    transferStats: (key, value) => append({ kind: 'transferStats', key, value }),
    infraction: (value) => append({ kind: 'infraction', value }),
    devolucao: (value) => append({ kind: 'devolucao', value }),
    pixWebhook: (value) => append({ kind: 'pixWebhook', value }),
    pixWebhookRemoved: (key) => append({ kind: 'pixWebhookRemoved', key }),
    efiSend: (value) => append({ kind: 'efiSend', value }),
    efiBalanceAdjustment: (value) => append({ kind: 'efiBalanceAdjustment', value }),
    account: (value) => append({ kind: 'account', value }),
    splitConfig: (value) => append({ kind: 'splitConfig', value }),
  };
}

function load(file: string, state: SandboxState): number {
  if (!fs.existsSync(file)) return 0;
  let skipped = 0;
  for (const text of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!text) continue;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      skipped++;
      continue;
    }
    apply(state, line);
  }
  return skipped;
}

function apply(state: SandboxState, line: Line): void {
  switch (line.kind) {
    case 'charge':
      state.charges.set(line.value.charge.id, line.value);
      break;
    case 'chargeKey':
      state.chargeIdempotency.set(line.key, line.value);
      break;
    case 'boleto':
      state.boletos.set(line.value.boleto.id, line.value);
      break;
    case 'boletoKey':
      state.boletoIdempotency.set(line.key, line.value);
      break;
    case 'transfer':
      state.transfers.set(line.value.id, line.value);
      break;
    case 'transferKey':
      state.transferIdempotency.set(line.key, line.value);
      break;
    case 'transferStats':
      state.transferStats.set(line.key, line.value);
      break;
    case 'infraction':
      state.infractions.set(line.value.id, line.value);
      break;
    case 'devolucao':
      state.devolucoes.set(`${line.value.endToEndId}/${line.value.id}`, line.value);
      break;
    case 'pixWebhook':
      state.pixWebhooks.set(line.value.chave, line.value);
      break;
    case 'pixWebhookRemoved':
      state.pixWebhooks.delete(line.key);
      break;
    case 'efiSend':
      state.efiSends.set(line.value.idEnvio, line.value);
      break;
    case 'efiBalanceAdjustment':
      state.efiBalanceAdjustmentCents = line.value;
      break;
    case 'account':
      state.accounts.set(line.value.id, line.value);
      break;
    case 'splitConfig':
      state.splitConfigs.set(line.value.id, line.value);
      break;
  }
}

/** One line per record, written aside and renamed over the journal, so a crash keeps one whole copy. */
function compact(file: string, state: SandboxState): void {
  const lines: Line[] = [
    ...[...state.accounts.values()].map((value) => ({ kind: 'account' as const, value })),
    ...[...state.splitConfigs.values()].map((value) => ({ kind: 'splitConfig' as const, value })),
    ...[...state.charges.values()].map((value) => ({ kind: 'charge' as const, value })),
    ...[...state.chargeIdempotency].map(([key, value]) => ({ kind: 'chargeKey' as const, key, value })),
    ...[...state.boletos.values()].map((value) => ({ kind: 'boleto' as const, value })),
    ...[...state.boletoIdempotency].map(([key, value]) => ({ kind: 'boletoKey' as const, key, value })),
    ...[...state.transfers.values()].map((value) => ({ kind: 'transfer' as const, value })),
    ...[...state.transferIdempotency].map(([key, value]) => ({ kind: 'transferKey' as const, key, value })),
    ...[...state.transferStats].map(([key, value]) => ({ kind: 'transferStats' as const, key, value })),
    ...[...state.infractions.values()].map((value) => ({ kind: 'infraction' as const, value })),
    ...[...state.devolucoes.values()].map((value) => ({ kind: 'devolucao' as const, value })),
    ...[...state.pixWebhooks.values()].map((value) => ({ kind: 'pixWebhook' as const, value })),
    ...[...state.efiSends.values()].map((value) => ({ kind: 'efiSend' as const, value })),
    { kind: 'efiBalanceAdjustment' as const, value: state.efiBalanceAdjustmentCents },
  ];
  const temp = `${file}.compacting`;
  fs.writeFileSync(temp, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  fs.renameSync(temp, file);
}
