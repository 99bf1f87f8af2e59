/**
 * `npm run gateway -- provider webhook register`: registers (or confirms) the gateway's API Pix
 * notification URL at the PSP, the same step the worker takes at start (workers/ensurePixWebhook.ts).
 * Reads the configuration as the worker does (config.ts), from the environment, else from the
 * running `npm start` stack. Prints neither the URL (it holds PIX_WEBHOOK_SECRET) nor any secret.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { pixApiClientFrom } from '../activities/provider/pixApi';
import { ensurePixWebhook, ensureSubscriptionWebhooks, webhookKeys } from '../workers/ensurePixWebhook';
import { PIX_API_CALLBACK_PATH } from '../core/pix/callbackPath';

export const providerWebhookHelp = `usage: npm run gateway -- provider webhook register

Registers where the PSP notifies the Pix received on the gateway's key and, with
PIX_TRANSFERS_API=efi, the Pix sent from its paying key: API Pix PUT /webhook/{key} with
<PUBLIC_BASE_URL>${PIX_API_CALLBACK_PATH}/<PIX_WEBHOOK_SECRET> (the PSP appends /pix) for
PIX_RECEIVING_KEY and PIX_SENDER_KEY. Idempotent: an identical registration is left as it is.
The worker does the same at every start.

Configuration (environment, else the running npm start stack's .data/local-env.json):
  PIX_API_BASE_URL        the PSP's API Pix base, e.g. https://psp.example/api/v2
                          (unset outside production: the bundled sandbox at PROVIDER_BASE_URL/api/v2)
  PIX_API_TOKEN_URL       the PSP's OAuth2 token endpoint
  PIX_API_CLIENT_ID       OAuth2 client credentials the PSP issued
  PIX_API_CLIENT_SECRET
  PIX_API_CERT_FILE       client certificate for mutual TLS (PEM) ...
  PIX_API_KEY_FILE        ... and its private key (PEM)
  PIX_API_PFX_FILE        or the same as PKCS#12 ...
  PIX_API_PFX_PASSPHRASE  ... with its passphrase
  PIX_API_CA_FILE         extra CA bundle, for a PSP with a private CA (optional)
  PIX_RECEIVING_KEY       the Pix key (chave) the cobs are created on
  PIX_SENDER_KEY          the Pix key that pays (Efí's sends); default PIX_RECEIVING_KEY
  PIX_WEBHOOK_SECRET      the secret path segment of the notification URL (32+ of A-Z a-z 0-9 - _)
  PUBLIC_BASE_URL         where the PSP reaches this gateway (behind your TLS proxy)`;

export async function providerWebhookCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { help: { type: 'boolean', short: 'h', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help || positionals.length !== 1 || positionals[0] !== 'register') {
    process.stdout.write(`${providerWebhookHelp}\n`);
    if (!values.help) process.exitCode = 2;
    return;
  }
  const config = loadConfig(env);
  const client = pixApiClientFrom(config);
  try {
    for (const key of webhookKeys(config)) {
      const outcome = await ensurePixWebhook(client, {
        receivingKey: key,
        publicBaseUrl: config.publicBaseUrl,
        webhookSecret: config.pixApi.webhookSecret,
      });
      process.stdout.write(`API Pix webhook for key ${key}: ${outcome}\n`);
    }
    const subscriptions = await ensureSubscriptionWebhooks(client, {
      publicBaseUrl: config.publicBaseUrl,
      webhookSecret: config.pixApi.webhookSecret,
    });
    process.stdout.write(`API Pix webhookrec: ${subscriptions.rec}; webhookcobr: ${subscriptions.cobr}\n`);
  } finally {
    await client.close();
  }
}
