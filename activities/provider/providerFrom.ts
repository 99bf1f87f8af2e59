/**
 * The one place the gateway's provider is built from its configuration: workers/main.ts, the
 * CLI and the test stacks all call this, so every process talks to the PSP the same way.
 *
 * One connection to the PSP account (pixApi/connection.ts: certificate, credentials, token cache)
 * serves API Pix and, with PIX_TRANSFERS_API=efi, Efí's send, balance and MED routes on the same
 * host. It is a value built here, not a singleton: a deployment with accounts per merchant builds
 * one per account.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config';
import { AdvisorySendSlots, type SendGate } from '../../db/sendSlots';
import { ApiPixCharges } from './apiPixCharges';
import { ApiPixReturns } from './apiPixReturns';
import { EfiClient } from './efi/efiClient';
import { EfiInfractions } from './efi/efiInfractions';
import { EfiTransfers } from './efi/efiTransfers';
import { HttpPixProvider } from './httpPixProvider';
import { ownTransfers } from './ownTransfers';
import { PixApiClient } from './pixApi';
import type { PixApiConnection } from './pixApi/connection';
import { connectionFrom } from './pixApi/fromConfig';
import { RoutedPixProvider } from './routedPixProvider';

export interface ConfiguredProvider {
  provider: RoutedPixProvider;
  /** The API Pix client itself, for what is no provider call (registering the webhook). */
  pixApi: PixApiClient;
  /** Efí's own routes (the balance for operators), when PIX_TRANSFERS_API=efi. */
  efi: EfiClient | null;
  /** Closes the connection and the send slots' pool (shutdown, tests). */
  close(): Promise<void>;
}

type ProviderConfig = Pick<GatewayConfig, 'provider' | 'pixApi' | 'pixTransfers' | 'databaseUrl'>;

export function providerFrom(config: ProviderConfig, logger: Logger): ConfiguredProvider {
  const own = new HttpPixProvider({
    baseUrl: config.provider.baseUrl,
    apiKey: config.provider.apiKey,
    timeoutMs: config.provider.timeoutMs,
  });
  const connection = connectionFrom(config);
  const pixApi = new PixApiClient({ connection, baseUrl: config.pixApi.baseUrl });
  const cobs = new ApiPixCharges({
    client: pixApi,
    receivingKey: config.pixApi.receivingKey,
    logger: logger.child({ module: 'api-pix-charges' }),
  });
  const returns = new ApiPixReturns({ client: pixApi });
  const money = moneyOut(config, connection, own);
  const provider = new RoutedPixProvider({ cobs, returns, pixList: pixApi, own, ...money.parts });
  return {
    provider,
    pixApi,
    efi: money.efi,
    close: async () => {
      await Promise.all([connection.close(), money.slots?.close()]);
    },
  };
}

/** The send API PIX_TRANSFERS_API picks, with MED and the DICT look-up that go with it. */
function moneyOut(config: ProviderConfig, connection: PixApiConnection, own: HttpPixProvider) {
  const settings = config.pixTransfers;
  if (settings.api === 'sandbox') {
    return {
      parts: { transfers: ownTransfers(own), infractions: own, directory: own },
      efi: null,
      slots: null as SendGate | null,
    };
  }
  const efi = new EfiClient(connection, settings.efiBaseUrl);
  const slots = new AdvisorySendSlots({
    databaseUrl: config.databaseUrl,
    account: `${settings.efiBaseUrl} ${config.pixApi.clientId} ${settings.senderKey}`,
    concurrency: settings.sendConcurrency,
    // With the outcome's wait and the HTTP deadline, inside the send activities' 30 s attempt.
    maxWaitMs: 15_000,
  });
  const transfers = new EfiTransfers({
    client: efi,
    senderKey: settings.senderKey,
    slots,
    outcomeWaitMs: settings.outcomeWaitMs,
  });
  return {
    parts: { transfers, infractions: new EfiInfractions(efi), directory: null },
    efi,
    slots: slots as SendGate | null,
  };
}
