/** The PSP account's connection and API Pix client the gateway's configuration describes (config.ts, PIX_API_*). */
import type { GatewayConfig } from '../../../config';
import { PixApiConnection } from './connection';
import { PixApiClient } from './pixApiClient';

export function connectionFrom(config: Pick<GatewayConfig, 'pixApi' | 'provider'>): PixApiConnection {
  const { pixApi, provider } = config;
  return new PixApiConnection({
    tokenUrl: pixApi.tokenUrl,
    clientId: pixApi.clientId,
    clientSecret: pixApi.clientSecret,
    tls: pixApi.tls,
    timeoutMs: provider.timeoutMs,
    allowPlainHttp: pixApi.allowPlainHttp,
  });
}

/** An API Pix client on a connection of its own (the CLI's webhook commands). */
export function pixApiClientFrom(config: Pick<GatewayConfig, 'pixApi' | 'provider'>): PixApiClient {
  return new PixApiClient({ connection: connectionFrom(config), baseUrl: config.pixApi.baseUrl });
}
