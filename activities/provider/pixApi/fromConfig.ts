/** The API Pix client the gateway's configuration describes (config.ts, PIX_API_*). */
import type { GatewayConfig } from '../../../config';
import { PixApiClient } from './pixApiClient';

export function pixApiClientFrom(config: Pick<GatewayConfig, 'pixApi' | 'provider'>): PixApiClient {
  const { pixApi, provider } = config;
  return new PixApiClient({
    baseUrl: pixApi.baseUrl,
    tokenUrl: pixApi.tokenUrl,
    clientId: pixApi.clientId,
    clientSecret: pixApi.clientSecret,
    tls: pixApi.tls,
    timeoutMs: provider.timeoutMs,
    allowPlainHttp: pixApi.allowPlainHttp,
  });
}
