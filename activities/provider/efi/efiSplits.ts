/**
 * The gateway's client of Efí's Split Pix (the SDK's pixSplitConfigId, pixSplitDetailConfig,
 * pixSplitLinkCharge, pixSplitUnlinkCharge, pixSplitDetailCharge): a split configuration written
 * on the account that owns the cob (the connected merchant's connection), linked to the cob, so
 * that the PSP divides the payment at settlement. The body is built by
 * core/connections/efiSplitConfig.ts; this file only carries it.
 *
 * Every call is safe to retry, the contract the workflows above rely on:
 *  - the configuration's id is ours (the charge's), so a PUT repeated after a lost answer
 *    rewrites the same configuration (the same content is no new revision);
 *  - a link refused because the cob already carries it (a retry after the link was made, or after
 *    the cob was paid) is success: the refusal is checked against the cob's split;
 *  - an unlink of a cob without a link is success: nothing to undo.
 * It rides on the account's connection (pixApi/connection.ts), as EfiClient does; every answer is
 * checked (splitSchemas.ts); every failure is a ProviderError under our codes (errors.ts).
 */
import { ProviderError } from '../../../core/provider';
import type { EfiSplitConfigBody } from '../../../core/connections/efiSplitConfig';
import { isValidTxid } from '../../../core/pix/brcode';
import type { AuthorizedCaller, CallSpec } from '../pixApi/authorizedCall';
import type { PixApiConnection } from '../pixApi/connection';
import { outcomeUnknown, PixApiErrorCodes } from '../pixApi/errors';
import { EfiErrorCodes, efiSplitAnswerError, isSplitNotFound } from './errors';
import {
  SPLIT_CONFIG_ID,
  cobSplitSchema,
  splitConfigSchema,
  type EfiCobSplit,
  type EfiSplitConfig,
} from './splitSchemas';

type Request<T> = Pick<CallSpec<T>, 'method' | 'path' | 'body' | 'schema'>;

/** Unused by Efí's routes (their errors are mapped by errors.ts); CallSpec asks for them. */
const CODES = { refused: EfiErrorCodes.splitRefused, notFound: EfiErrorCodes.splitConfigNotFound };

export class EfiSplits {
  private readonly caller: AuthorizedCaller;

  constructor(connection: PixApiConnection, efiBaseUrl: string) {
    this.caller = connection.caller(efiBaseUrl, 'EFI_API_BASE_URL');
  }

  /** Writes the configuration `id` (a new one, or a new revision of the account's own). */
  async putSplitConfig(id: string, body: EfiSplitConfigBody): Promise<EfiSplitConfig> {
    const route = 'PUT /v2/gn/split/config/{id}';
    const answer = await this.required(route, {
      method: 'PUT',
      path: `/v2/gn/split/config/${configId(id)}`,
      body,
      schema: splitConfigSchema,
    });
    if (answer.id !== id) throw outcomeUnknown(`Efí ${route}`, 200, 'the answer is about another configuration');
    return answer;
  }

  /** The configuration `id` of the account, or null when it has none of that id. */
  async getSplitConfig(id: string): Promise<EfiSplitConfig | null> {
    const route = 'GET /v2/gn/split/config/{id}';
    const answer = await this.call(route, {
      method: 'GET',
      path: `/v2/gn/split/config/${configId(id)}`,
      schema: splitConfigSchema,
    });
    if (answer && answer.id !== id)
      throw outcomeUnknown(`Efí ${route}`, 200, 'the answer is about another configuration');
    return answer;
  }

  /** Links the configuration to the cob: the PSP divides the cob by it when paid. */
  async linkCob(txid: string, splitConfigId: string): Promise<void> {
    const route = 'PUT /v2/gn/split/cob/{txid}/vinculo/{id}';
    try {
      // 204 without a body: any 2xx is the answer; an unknown configuration is an error here.
      await this.required(route, {
        method: 'PUT',
        path: `/v2/gn/split/cob/${cobTxid(txid)}/vinculo/${configId(splitConfigId)}`,
        schema: null,
      });
    } catch (err) {
      // A refusal may be the PSP saying what we asked is done (the cob linked by an earlier try,
      // then perhaps paid): the cob's own split decides. Anything transient is retried as it is.
      if (!(err instanceof ProviderError) || err.transient || err.code === PixApiErrorCodes.cobNotFound) throw err;
      const linked = await this.getCobSplit(txid).catch(() => null);
      if (linked?.config.id === splitConfigId) return;
      throw err;
    }
  }

  /** Removes the cob's link (the cob then stays whole with the account); no link is success. */
  async unlinkCob(txid: string): Promise<void> {
    await this.call('DELETE /v2/gn/split/cob/{txid}/vinculo', {
      method: 'DELETE',
      path: `/v2/gn/split/cob/${cobTxid(txid)}/vinculo`,
      schema: null,
    });
  }

  /** The cob with the configuration linked to it, or null when it has no link (an unknown cob: COB_NOT_FOUND). */
  async getCobSplit(txid: string): Promise<EfiCobSplit | null> {
    const route = 'GET /v2/gn/split/cob/{txid}';
    const answer = await this.call(route, {
      method: 'GET',
      path: `/v2/gn/split/cob/${cobTxid(txid)}`,
      schema: cobSplitSchema,
    });
    if (answer && answer.txid !== txid) throw outcomeUnknown(`Efí ${route}`, 200, 'the answer is about another cob');
    return answer;
  }

  /** A call whose "no such configuration or link" answer is null. */
  private call<T>(route: string, spec: Request<T>): Promise<T | null> {
    return this.caller.call<T>({
      ...spec,
      route,
      codes: CODES,
      what: `Efí ${route}`,
      foreign: { errorOf: efiSplitAnswerError, isNotFound: isSplitNotFound },
    });
  }

  /** A call whose every non-2xx answer is a ProviderError. */
  private async required<T>(route: string, spec: Request<T>): Promise<T> {
    const answer = await this.caller.call<T>({
      ...spec,
      route,
      codes: CODES,
      what: `Efí ${route}`,
      foreign: { errorOf: efiSplitAnswerError },
    });
    return answer as T;
  }
}

function configId(id: string): string {
  if (!SPLIT_CONFIG_ID.test(id))
    throw new ProviderError(
      'Efí request not sent: a split configuration id must be 1 to 35 alphanumerics',
      PixApiErrorCodes.invalidRequest,
      false,
    );
  return id;
}

function cobTxid(txid: string): string {
  if (!isValidTxid(txid))
    throw new ProviderError(
      'Efí request not sent: txid must be 26 to 35 alphanumerics',
      PixApiErrorCodes.invalidRequest,
      false,
    );
  return txid;
}
