/**
 * The one place the gateway's provider is built from its configuration: workers/main.ts, the
 * CLI and the test stacks all call this, so every process talks to the PSP the same way.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config';
import { ApiPixCharges } from './apiPixCharges';
import { ApiPixReturns } from './apiPixReturns';
import { HttpPixProvider } from './httpPixProvider';
import { pixApiClientFrom, type PixApiClient } from './pixApi';
import { RoutedPixProvider } from './routedPixProvider';

export interface ConfiguredProvider {
  provider: RoutedPixProvider;
  /** The API Pix client itself, for what is no provider call (registering the webhook). */
  pixApi: PixApiClient;
}

export function providerFrom(config: Pick<GatewayConfig, 'provider' | 'pixApi'>, logger: Logger): ConfiguredProvider {
  const own = new HttpPixProvider({
    baseUrl: config.provider.baseUrl,
    apiKey: config.provider.apiKey,
    timeoutMs: config.provider.timeoutMs,
  });
  const pixApi = pixApiClientFrom(config);
  const cobs = new ApiPixCharges({
    client: pixApi,
    receivingKey: config.pixApi.receivingKey,
    logger: logger.child({ module: 'api-pix-charges' }),
  });
  const returns = new ApiPixReturns({ client: pixApi });
  return { provider: new RoutedPixProvider({ cobs, returns, pixList: pixApi, own }), pixApi };
}
