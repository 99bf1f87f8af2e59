/**
 * The sandbox as Efí for what API Pix does not cover: sending Pix, the sent-Pix reads, the
 * balance, MED and Split Pix (docs/standards/efi-pix.yaml). Mounted by app.ts at /v2/gn and /v3/gn, on the
 * same origin and behind the same faults and bearer tokens as API Pix (one AccessTokens).
 * Each token is bound to one account (accounts.ts): a route sends from, reads and answers for
 * that account only. Everything works on the sandbox's stores: a send is a transfer, an infraction is the one
 * infractions.ts keeps, the webhook is the one registered through API Pix.
 */
import express, { Router } from 'express';
import type { SandboxContext } from '../context';
import { observer, type ObservedApiRequest } from '../pixApi';
import type { AccessTokens } from '../pixApi/oauth';
import { requireEfiToken } from './auth';
import { balanceRoutes } from './balanceRoutes';
import { efiErrorHandler, efiNotFound } from './errors';
import { medRoutes } from './medRoutes';
import { sendRoutes, sentPixRoutes } from './sendRoutes';
import { splitRoutes } from './splitRoutes';
import { EfiSendWebhooks } from './webhooks';

export interface EfiApiOptions {
  tokens: AccessTokens;
  /** How long a send reads EM_PROCESSAMENTO. */
  settleMs: number;
  openingBalanceCents: number;
  observeApiRequest?: (req: ObservedApiRequest) => void;
}

export interface EfiApi {
  /** Mount at /v2/gn. */
  v2: Router;
  /** Mount at /v3/gn. */
  v3: Router;
  webhooks: EfiSendWebhooks;
  stop(): void;
}

export function createEfiApi(ctx: SandboxContext, options: EfiApiOptions): EfiApi {
  if (!Number.isInteger(options.settleMs) || options.settleMs < 0)
    throw new Error('the Efí send settle time must be a whole number of ms, 0 or more');
  if (!Number.isSafeInteger(options.openingBalanceCents))
    throw new Error('the Efí opening balance must be a whole number of cents');
  const webhooks = new EfiSendWebhooks(ctx);
  const sendOptions = {
    settleMs: options.settleMs,
  };
  const base = (): Router => {
    const router = Router();
    router.use(requireEfiToken(options.tokens));
    router.use(
      express.json({
        limit: '64kb',
        verify: (req, _res, buf) => void ((req as { rawPixBody?: Buffer }).rawPixBody = buf),
      }),
    );
    if (options.observeApiRequest) router.use(observer(options.observeApiRequest));
    return router;
  };
  const end = (router: Router): Router => {
    router.use(efiNotFound);
    router.use(efiErrorHandler(ctx.logger));
    return router;
  };
  const v2 = base();
  v2.use(sentPixRoutes(ctx));
  v2.use(balanceRoutes(ctx));
  v2.use(medRoutes(ctx));
  v2.use(splitRoutes(ctx));
  const v3 = base();
  v3.use(sendRoutes(ctx, sendOptions, webhooks));
  return {
    v2: end(v2),
    v3: end(v3),
    webhooks,
    stop: () => webhooks.stop(),
  };
}
