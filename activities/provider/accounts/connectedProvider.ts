/**
 * The provider of one merchant's own PSP account (the connected model, issue 37): API Pix for its
 * cobs, Pix received and devoluções, on its own connection (client id, secret, certificate) and its
 * own Pix key; Efí's send, balance and MED routes on the same host and connection; its own send
 * slots, so one account's pacing never waits on another's. No own API (the bundled sandbox's
 * `/v1`): its boletos are Efí's API Cobranças on the same connection's credentials (efiBoletos.ts),
 * never the platform's (RoutedPixProvider refuses them here).
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../../config';
import { materialTls, type ConnectionMaterial } from '../../../core/connections/material';
import { AdvisorySendSlots } from '../../../db/sendSlots';
import type { PspConnectionRow } from '../../../db/connections';
import { ApiPixCharges } from '../apiPixCharges';
import { ApiPixReturns } from '../apiPixReturns';
import { EfiClient } from '../efi/efiClient';
import { EfiInfractions } from '../efi/efiInfractions';
import { EfiTransfers } from '../efi/efiTransfers';
import { EfiSplits } from '../efi/efiSplits';
import { EfiBoletos, efiCobrancasBaseUrl } from '../efi/efiBoletos';
import type { BoletoProvider, RecurrenceProvider } from '../../../core/provider';
import { PixApiClient } from '../pixApi';
import { PixApiConnection } from '../pixApi/connection';
import { RoutedPixProvider } from '../routedPixProvider';

export type ConnectedProviderConfig = Pick<GatewayConfig, 'pixApi' | 'pixTransfers' | 'databaseUrl'> & {
  provider: Pick<GatewayConfig['provider'], 'timeoutMs'>;
};

export interface ConnectedProvider {
  provider: RoutedPixProvider;
  /** Efí's Split Pix on the merchant's account. */
  splits: EfiSplits;
  /** Pix Automático (recurrences, cycle charges) on the merchant's API Pix. */
  recurrences: RecurrenceProvider;
  /** Efí's boletos on the merchant's account, notified at `notificationUrl(reference)`. */
  boletos(notificationUrl: (reference: string) => string | null): BoletoProvider;
  close(): Promise<void>;
}

/**
 * An OAuth + mutual TLS connection to the merchant's PSP with `material` (its secrets): what every
 * call on a connected account goes through, and what "test the connection" and the webhook
 * registration open afresh (the CLI, activities/connections/). The caller closes it.
 */
export function pspConnectionOf(
  row: Pick<PspConnectionRow, 'token_url' | 'client_id'>,
  material: ConnectionMaterial,
  opts: { timeoutMs: number; allowPlainHttp: boolean },
): PixApiConnection {
  return new PixApiConnection({
    tokenUrl: row.token_url,
    clientId: row.client_id,
    clientSecret: material.clientSecret,
    tls: materialTls(material),
    timeoutMs: opts.timeoutMs,
    allowPlainHttp: opts.allowPlainHttp,
  });
}

export function connectedProvider(
  row: PspConnectionRow,
  material: ConnectionMaterial,
  config: ConnectedProviderConfig,
  logger: Logger,
): ConnectedProvider {
  const connection = pspConnectionOf(row, material, {
    timeoutMs: config.provider.timeoutMs,
    // The same rule as the platform's connection: https in production, http allowed in development.
    allowPlainHttp: config.pixApi.allowPlainHttp,
  });
  const pixApi = new PixApiClient({ connection, baseUrl: row.api_base_url });
  const efi = new EfiClient(connection, new URL(row.api_base_url).origin);
  const slots = new AdvisorySendSlots({
    databaseUrl: config.databaseUrl,
    account: `${new URL(row.api_base_url).origin} ${row.client_id} ${row.pix_key}`,
    concurrency: config.pixTransfers.sendConcurrency,
    maxWaitMs: 15_000,
  });
  const transfers = new EfiTransfers({
    client: efi,
    senderKey: row.pix_key,
    slots,
    outcomeWaitMs: config.pixTransfers.outcomeWaitMs,
  });
  const provider = new RoutedPixProvider({
    cobs: new ApiPixCharges({
      client: pixApi,
      receivingKey: row.pix_key,
      logger: logger.child({ module: 'api-pix-charges', connectionId: row.id }),
    }),
    returns: new ApiPixReturns({ client: pixApi }),
    pixList: pixApi,
    own: null,
    transfers,
    infractions: new EfiInfractions(efi),
    directory: null,
  });
  return {
    provider,
    splits: new EfiSplits(connection, new URL(row.api_base_url).origin),
    recurrences: pixApi.automatico,
    boletos: (notificationUrl) =>
      new EfiBoletos({
        connection,
        baseUrl: efiCobrancasBaseUrl(row.api_base_url),
        clientId: row.client_id,
        clientSecret: material.clientSecret,
        notificationUrl,
      }),
    close: async () => {
      await Promise.all([connection.close(), slots.close()]);
    },
  };
}
