/**
 * A connected merchant's charge divided by its PSP: the body of Efí's split configuration
 * (`PUT /v2/gn/split/config/{id}`, the SDK's PixSplitConfigBodySchema) that makes Efí pay, at
 * settlement, exactly what the ledger's chargePaidEntry (core/ledger/postings.ts) says a paid
 * charge is: the platform's fee to the platform's account, each split recipient its share in its
 * own account, the merchant (the cob's owner, whose account holds the configuration) the rest.
 * The PSP's division and the ledger's mirror of it are then the same numbers, to the cent.
 *
 * Choices, each for a reason:
 *  - fixed shares (`tipo: fixo`), never percentages: our shares are already cents (core/splits.ts
 *    rounded the percentages when the charge was created); a percentage would be rounded again,
 *    by the PSP's rule, and could differ from the ledger by a cent;
 *  - one configuration per charge, named after it (splitConfigIdFor): fixed shares must add up to
 *    the cob's value, so they belong to one amount; and a stable id makes every retry of the PUT
 *    rewrite the same configuration instead of creating a second one;
 *  - `divisaoTarifa: assumir_total`: the merchant, whose cob it is, bears the PSP's whole fee for
 *    the Pix, as it does on any Pix its account receives. With `proporcional` the PSP would take
 *    part of its fee out of each repasse, so the platform and the partners would receive amounts
 *    only the PSP knows, and neither the fee nor the shares would match the charge's or the ledger's;
 *  - `lancamento.imediato: true`: each share is credited at settlement, when the ledger records it;
 *  - zero shares are dropped (Efí wants each repasse above zero), shares to the same account are
 *    one repasse (Efí takes each account once), a split to the charge's own merchant stays in
 *    `minhaParte` (an account cannot repasse to itself). Nothing to pass on: no configuration;
 *  - a recipient whose account is at another PSP (`sentAfterSettlement`) is no repasse: Split Pix
 *    pays only accounts of its own PSP. Its share stays in `minhaParte` and is sent by Pix from
 *    the merchant's account after settlement (splitSendsFor; activities/splitSends/).
 * Pure; the refusals are SplitConfigErrors with our codes, raised before any call to the PSP.
 */
import { txidFor } from '../pix/apiPixIds';
import { centsToPixAmount } from '../pix/pixAmount';

/** An account at the PSP as Efí's Split Pix names it: its number and its holder's document (digits). */
export type PspAccountIdentity = { conta: string; cnpj: string } | { conta: string; cpf: string };

/** What is divided: the charge as the ledger's chargePaidEntry reads it. */
export interface ChargeToSplit {
  chargeId: string;
  /** The charge's owner: its account holds the configuration and the cob, and keeps `minhaParte`. */
  merchantId: string;
  amountCents: number;
  /** The platform's fee (the charge's feeCents). */
  feeCents: number;
  splits: readonly { merchantId: string; amountCents: number }[];
}

/** Where each party's share goes, at the same PSP as the merchant's account. */
export interface SplitAccounts {
  platform: PspAccountIdentity;
  /** A recipient merchant's account, or null when it has none at this PSP (a connection elsewhere, or none). */
  recipientAccount(merchantId: string): PspAccountIdentity | null;
  /**
   * True for a recipient with no account at this PSP but an account of its own at another one:
   * the PSP keeps its share in the merchant's account (minhaParte), and it is sent from there
   * by Pix after settlement (splitSendsFor). A recipient with neither is refused.
   */
  sentAfterSettlement?(merchantId: string): boolean;
}

type Share = { tipo: 'fixo'; valor: string };
export interface EfiSplitConfigBody {
  descricao: string;
  lancamento: { imediato: true };
  split: {
    divisaoTarifa: 'assumir_total';
    minhaParte: Share;
    repasses: (Share & { favorecido: PspAccountIdentity })[];
  };
}

export const SplitConfigErrorCodes = {
  /** A recipient with a share has no account at the merchant's PSP, nor one elsewhere a send could reach. */
  recipientNotAtPsp: 'SPLIT_RECIPIENT_NOT_AT_PSP',
  /** The platform's account (or a recipient's) is not a usable identity: conta and one document. */
  accountInvalid: 'SPLIT_ACCOUNT_INVALID',
  /** Two parties name one account with different documents: one of them is wrong. */
  accountConflict: 'SPLIT_ACCOUNT_CONFLICT',
  /** The fee and the shares exceed the amount, or an amount is not whole cents. */
  sharesDoNotAddUp: 'SPLIT_SHARES_DO_NOT_ADD_UP',
  /** More repasses than Efí takes in one configuration. */
  tooManyRecipients: 'SPLIT_TOO_MANY_RECIPIENTS',
} as const;
export type SplitConfigErrorCode = (typeof SplitConfigErrorCodes)[keyof typeof SplitConfigErrorCodes];

export class SplitConfigError extends Error {
  constructor(
    readonly code: SplitConfigErrorCode,
    message: string,
    /** The recipient merchant concerned, when there is one. */
    readonly merchantId: string | null = null,
  ) {
    super(message);
    this.name = 'SplitConfigError';
  }
}

/** Efí's limit of repasses per configuration (the SDK's schema; the sandbox applies it). */
export const MAX_REPASSES = 20;
const CONTA_RE = /^\d{1,20}$/;
const CPF_RE = /^\d{11}$/;
const CNPJ_RE = /^\d{14}$/;

/**
 * The id of this charge's split configuration: the same 32 hex digits as its cob's txid
 * (txidFor), inside Efí's 1 to 35 letters and digits, and stable, so a retried PUT rewrites it.
 */
export function splitConfigIdFor(chargeId: string): string {
  return txidFor(chargeId);
}

/** Efí's configuration for this charge, or null when nothing leaves the merchant's account (no fee, no share). */
export function efiSplitConfigFor(charge: ChargeToSplit, accounts: SplitAccounts): EfiSplitConfigBody | null {
  for (const cents of [charge.amountCents, charge.feeCents, ...charge.splits.map((s) => s.amountCents)])
    if (!Number.isSafeInteger(cents) || cents < 0)
      throw new SplitConfigError(SplitConfigErrorCodes.sharesDoNotAddUp, `${cents} is not a whole number of cents`);

  const parties = [
    { merchantId: null, cents: charge.feeCents, account: () => accounts.platform },
    ...charge.splits
      // The owner's own share is the rest: it stays in minhaParte; so does a share sent later.
      .filter((s) => s.merchantId !== charge.merchantId && !accounts.sentAfterSettlement?.(s.merchantId))
      .map((s) => ({
        merchantId: s.merchantId,
        cents: s.amountCents,
        account: () => accounts.recipientAccount(s.merchantId),
      })),
  ].filter((p) => p.cents > 0);

  const passedOn = parties.reduce((sum, p) => sum + p.cents, 0);
  const ownerCents = charge.amountCents - charge.feeCents - charge.splits.reduce((s, x) => s + x.amountCents, 0);
  if (ownerCents < 0)
    throw new SplitConfigError(
      SplitConfigErrorCodes.sharesDoNotAddUp,
      `the fee and the split shares exceed the charge's amount by ${-ownerCents} cents`,
    );
  if (parties.length === 0) return null;

  // One repasse per account: the PSP takes each account once.
  const byConta = new Map<string, { favorecido: PspAccountIdentity; cents: number }>();
  for (const party of parties) {
    const favorecido = identityOf(party.account(), party.merchantId);
    const known = byConta.get(favorecido.conta);
    if (known && document(known.favorecido) !== document(favorecido))
      throw new SplitConfigError(
        SplitConfigErrorCodes.accountConflict,
        `account ${favorecido.conta} is named with two different documents`,
        party.merchantId,
      );
    byConta.set(favorecido.conta, { favorecido, cents: (known?.cents ?? 0) + party.cents });
  }
  if (byConta.size > MAX_REPASSES)
    throw new SplitConfigError(
      SplitConfigErrorCodes.tooManyRecipients,
      `${byConta.size} accounts to pay; Efí's Split Pix takes at most ${MAX_REPASSES}`,
    );

  // The rest, never negative (ownerCents ≥ 0): the owner's net plus any split to itself.
  const minhaParteCents = charge.amountCents - passedOn;

  return {
    descricao: `Cobrança ${charge.chargeId}`,
    lancamento: { imediato: true },
    split: {
      divisaoTarifa: 'assumir_total',
      minhaParte: { tipo: 'fixo', valor: centsToPixAmount(minhaParteCents) },
      repasses: [...byConta.values()].map(({ favorecido, cents }) => ({
        tipo: 'fixo',
        valor: centsToPixAmount(cents),
        favorecido,
      })),
    },
  };
}

/**
 * The shares the PSP leaves in the merchant's account for a send after settlement, one per
 * recipient (its splits summed), above zero; what efiSplitConfigFor kept in minhaParte for them.
 */
export function splitSendsFor(
  charge: Pick<ChargeToSplit, 'merchantId' | 'splits'>,
  accounts: Pick<SplitAccounts, 'sentAfterSettlement'>,
): { merchantId: string; amountCents: number }[] {
  const byRecipient = new Map<string, number>();
  for (const s of charge.splits)
    if (s.merchantId !== charge.merchantId && accounts.sentAfterSettlement?.(s.merchantId))
      byRecipient.set(s.merchantId, (byRecipient.get(s.merchantId) ?? 0) + s.amountCents);
  return [...byRecipient]
    .filter(([, cents]) => cents > 0)
    .map(([merchantId, amountCents]) => ({ merchantId, amountCents }));
}

/** An account's identity from its number and its holder's document (CPF: 11 digits, CNPJ: 14), or null without a number. */
export function accountIdentity(conta: string | null, document: string | null): PspAccountIdentity | null {
  if (!conta || !document) return null;
  const digits = document.replace(/\D/g, '');
  return digits.length === 14 ? { conta, cnpj: digits } : { conta, cpf: digits };
}

/** The account as Efí wants it (conta and exactly one document, digits only), or a refusal naming whose it is. */
function identityOf(account: PspAccountIdentity | null, merchantId: string | null): PspAccountIdentity {
  const whose = merchantId === null ? "the platform's account" : `recipient ${merchantId}`;
  if (account === null)
    throw new SplitConfigError(
      SplitConfigErrorCodes.recipientNotAtPsp,
      merchantId === null
        ? `${whose} has no account at the merchant's PSP: Split Pix cannot pay it`
        : `${whose} has no account at the merchant's PSP nor a PSP connection elsewhere: neither Split Pix nor a send from your account can pay it`,
      merchantId,
    );
  const { conta } = account;
  const cpf = 'cpf' in account ? account.cpf : undefined;
  const cnpj = 'cnpj' in account ? account.cnpj : undefined;
  const valid =
    typeof conta === 'string' &&
    CONTA_RE.test(conta) &&
    (cpf === undefined) !== (cnpj === undefined) &&
    (cpf === undefined || CPF_RE.test(cpf)) &&
    (cnpj === undefined || CNPJ_RE.test(cnpj));
  if (!valid)
    throw new SplitConfigError(
      SplitConfigErrorCodes.accountInvalid,
      `${whose} is not a PSP account identity (conta and one document, digits only)`,
      merchantId,
    );
  // Only the fields Efí takes: an identity object carrying more would be refused by the PSP.
  return cnpj !== undefined ? { cnpj, conta } : { cpf: cpf as string, conta };
}

function document(account: PspAccountIdentity): string {
  return 'cnpj' in account ? `cnpj:${account.cnpj}` : `cpf:${account.cpf}`;
}
