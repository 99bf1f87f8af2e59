/**
 * The directory of PSP accounts the worker speaks to (issue 37): the platform's (PIX_API_*) and
 * each connected merchant's own, built from its psp_connections row the first time it is needed
 * and kept while the row is unchanged. A rotation (promotePending rewrites the row) builds the
 * next one on the new material and closes the old; a revocation stops the merchant's calls with
 * PSP_CONNECTION_REVOKED on the next one, without touching any other merchant.
 *
 * One database read per call (the row's status and version): a revoked connection must stop at
 * once, and the read is small beside the PSP call it precedes.
 */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { credentialsKeyring, openEnvelope, type MasterKeyring } from '../../../core/crypto/envelope';
import { parseMaterial } from '../../../core/connections/material';
import { accountIdentity, type PspAccountIdentity } from '../../../core/connections/efiSplitConfig';
import type { GatewayConfig } from '../../../config';
import { connectionBoletoNotificationUrl } from '../../../core/pix/callbackPath';
import {
  PSP_CONNECTION_REQUIRED,
  PSP_CONNECTION_REVOKED,
  PSP_CONNECTION_UNAVAILABLE,
  type AccountModelDefault,
  ProviderError,
  type PixProvider,
  type PspAccount,
  type PspAccounts,
  type RecurrenceProvider,
} from '../../../core/provider';
import { pspConnectionStore, type PspConnectionRow } from '../../../db/connections';
import type { PixApiConnection } from '../pixApi/connection';
import {
  connectedProvider,
  pspConnectionOf,
  type ConnectedProvider,
  type ConnectedProviderConfig,
} from './connectedProvider';

export interface PspAccountsOptions {
  platform: PixProvider;
  /** Pix Automático on the platform's account (its API Pix client's `automatico`); absent: none there. */
  platformRecurrences?: RecurrenceProvider;
  sequelize: Sequelize;
  /** CREDENTIALS_ENCRYPTION_KEY's keyring; null where none is configured (then no connection opens). */
  keyring: MasterKeyring | null;
  config: ConnectedProviderConfig;
  /** The platform's own account at the connected merchants' PSP (config.platformPspAccount), where Split Pix pays its fee. */
  platformAccount: PspAccountIdentity | null;
  /** PUBLIC_BASE_URL: a connected boleto's notification URL is built on it; absent: no notification asked. */
  publicBaseUrl?: string;
  /** ACCOUNT_MODEL_DEFAULT: `connected` refuses a merchant with no connection (PSP_CONNECTION_REQUIRED); default platform. */
  accountModelDefault?: AccountModelDefault;
  logger: Logger;
}

interface Built {
  version: string;
  account: PspAccount;
  connected: ConnectedProvider;
}

export class ConnectedPspAccounts implements PspAccounts {
  private readonly platform: PspAccount;
  private readonly built = new Map<string, Built>();

  constructor(private readonly opts: PspAccountsOptions) {
    this.platform = {
      connectionId: null,
      provider: opts.platform,
      ...(opts.platformRecurrences ? { recurrences: opts.platformRecurrences } : {}),
    };
  }

  async forMerchant(merchantId: string): Promise<PspAccount> {
    const row = await pspConnectionStore.findLatestConnection(this.opts.sequelize, merchantId);
    if (row) return this.accountOf(row);
    if (this.opts.accountModelDefault === 'connected')
      throw new ProviderError(
        `merchant ${merchantId} has no PSP connection, and this platform holds no merchant's money (ACCOUNT_MODEL_DEFAULT=connected)`,
        PSP_CONNECTION_REQUIRED,
        false,
      );
    return this.platform;
  }

  async forConnection(connectionId: string | null): Promise<PspAccount> {
    if (connectionId === null) return this.platform;
    const row = await pspConnectionStore.findConnectionById(this.opts.sequelize, connectionId);
    if (!row)
      throw new ProviderError(`PSP connection ${connectionId} does not exist`, PSP_CONNECTION_UNAVAILABLE, false);
    return this.accountOf(row);
  }

  /**
   * A fresh connection on the row's own material, closed after `use`: "test the connection" and
   * the webhook registration (activities/connections/) take a token of their own rather than the
   * one the account's calls share, so a test says whether a token can be had now. `pending`: on
   * the material a rotation staged (activities/connections/rotation.ts tests it before promoting it).
   */
  async withConnection<T>(
    row: PspConnectionRow,
    use: (connection: PixApiConnection) => Promise<T>,
    material: 'active' | 'pending' = 'active',
  ): Promise<T> {
    const envelope = material === 'active' ? row.secret_envelope : row.pending_secret_envelope;
    if (envelope === null) throw unopenable(row);
    const connection = pspConnectionOf(row, this.material(row, envelope), {
      timeoutMs: this.opts.config.provider.timeoutMs,
      allowPlainHttp: this.opts.config.pixApi.allowPlainHttp,
    });
    try {
      return await use(connection);
    } finally {
      await connection.close();
    }
  }

  /** The connection's notification path secret, out of its envelope (its webhook URL is built with it, never shown). */
  webhookPathSecret(row: PspConnectionRow): string {
    return this.opened(row, row.webhook_path_secret_envelope);
  }

  /** Closes every connection built (shutdown, tests). */
  async close(): Promise<void> {
    const all = [...this.built.values()];
    this.built.clear();
    await Promise.all(all.map((b) => b.connected.close()));
  }

  private accountOf(row: PspConnectionRow): PspAccount {
    if (row.status !== 'ACTIVE') {
      throw new ProviderError(
        `the merchant's PSP connection ${row.id} was revoked: register a new one to charge and send again`,
        PSP_CONNECTION_REVOKED,
        false,
      );
    }
    const version = `${row.secret_envelope.length}:${row.updated_at.toISOString()}:${row.secret_envelope.slice(-24)}`;
    const known = this.built.get(row.id);
    if (known?.version === version) return known.account;
    const connected = connectedProvider(row, this.material(row), this.opts.config, this.opts.logger);
    const splits = connected.splits;
    const { publicBaseUrl } = this.opts;
    const account: PspAccount = {
      connectionId: row.id,
      provider: connected.provider,
      recurrences: connected.recurrences,
      // Efí notifies a boleto's payment at the connection's own route, naming the charge (our reference).
      boletos: connected.boletos((reference) =>
        publicBaseUrl
          ? connectionBoletoNotificationUrl(publicBaseUrl, row.id, this.webhookPathSecret(row), reference)
          : null,
      ),
      splits: {
        platform: this.opts.platformAccount,
        pspOrigin: new URL(row.api_base_url).origin,
        putSplitConfig: (id, body) => splits.putSplitConfig(id, body),
        linkCob: (txid, id) => splits.linkCob(txid, id),
      },
    };
    this.built.set(row.id, { version, account, connected });
    // The old material's connection finishes what it has in flight, then goes.
    if (known) void known.connected.close().catch(() => undefined);
    return account;
  }

  private material(row: PspConnectionRow, envelope: string = row.secret_envelope) {
    const text = this.opened(row, envelope);
    try {
      return parseMaterial(text);
    } catch {
      throw unopenable(row);
    }
  }

  private opened(row: PspConnectionRow, envelope: string): string {
    if (!this.opts.keyring) {
      throw new ProviderError(
        'CREDENTIALS_ENCRYPTION_KEY is not configured: no merchant connection can be opened',
        PSP_CONNECTION_UNAVAILABLE,
        false,
      );
    }
    try {
      return openEnvelope(envelope, this.opts.keyring);
    } catch {
      throw unopenable(row);
    }
  }
}

/** Never the envelope's own error text: it names nothing secret, but says nothing useful either. */
function unopenable(row: PspConnectionRow): ProviderError {
  return new ProviderError(
    `the material of PSP connection ${row.id} does not open with the configured master key`,
    PSP_CONNECTION_UNAVAILABLE,
    false,
  );
}

/** The worker's directory: the platform's provider and CREDENTIALS_ENCRYPTION_KEY's keyring (none: no connection opens). */
export function pspAccountsFrom(
  config: ConnectedProviderConfig &
    Pick<
      GatewayConfig,
      'credentialsEncryptionKey' | 'connectionMasterKeys' | 'platformPspAccount' | 'accountModelDefault'
    > &
    Partial<Pick<GatewayConfig, 'publicBaseUrl'>>,
  deps: { platform: PixProvider; platformRecurrences?: RecurrenceProvider; sequelize: Sequelize; logger: Logger },
): ConnectedPspAccounts {
  return new ConnectedPspAccounts({
    ...deps,
    keyring: config.credentialsEncryptionKey
      ? credentialsKeyring(config.credentialsEncryptionKey, config.connectionMasterKeys)
      : null,
    config,
    accountModelDefault: config.accountModelDefault,
    publicBaseUrl: config.publicBaseUrl,
    platformAccount: config.platformPspAccount
      ? accountIdentity(config.platformPspAccount.conta, config.platformPspAccount.document)
      : null,
  });
}
