/** OpenAPI for the API Pix notification routes (router.ts: /pix, and Pix Automático's /rec and /cobr), mounted at /webhooks/pix-api. */
import { z } from 'zod';
import { callbackOutcome } from '../callbacks/schema';
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';
import { noticeOutcomes } from '../../../db/subscriptions';
import { cobrNotificationBody, pixNotificationBody, recNotificationBody } from './schema';

/** The body both notification routes take (this one and a merchant connection's). */
export const pixApiNotification = registry.register('PixApiNotification', pixNotificationBody);

/** What both answer once every Pix of the body is durable. */
export const pixApiNotificationAnswer = z.object({
  received: z.literal(true),
  outcomes: z.array(
    z.object({
      endToEndId: z.string().optional(),
      idEnvio: z.string().optional(),
      outcome: callbackOutcome,
    }),
  ),
});

registry.registerPath({
  method: 'post',
  path: '/webhooks/pix-api/{secret}/pix',
  operationId: 'receivePixApiNotification',
  tags: ['Provider callbacks'],
  summary: 'API Pix notification from the PSP (the Pix received on our key)',
  description:
    "Called by the PSP, not by merchants: the URL registered with `PUT /webhook/{chave}` of the BCB's API Pix is `<PUBLIC_BASE_URL>/webhooks/pix-api/<PIX_WEBHOOK_SECRET>`, " +
    'and the PSP appends `/pix`. A wrong secret answers 404, like a route that does not exist; past 10 wrong secrets a minute from one client IP, 429 RATE_LIMITED (the right secret is never limited). Each Pix is stored once (event `pix:<endToEndId>`) and is a claim: ' +
    "nothing is credited until the PSP's own records (`GET /cob/{txid}`, `GET /pix/{e2eid}`) confirm the amount, the txid and our key. A Pix of no charge of ours is logged and " +
    "answered 200 all the same (UNKNOWN_CHARGE), so the PSP stops retrying it. 200 only once every Pix of the body is durable; put a TLS-terminating proxy that checks the PSP's client certificate in front of this route.",
  security: security.none,
  request: {
    params: z.object({ secret: z.string().meta({ description: 'PIX_WEBHOOK_SECRET.' }) }),
    body: {
      required: true,
      content: { 'application/json': { schema: pixApiNotification } },
    },
  },
  responses: {
    200: jsonResponse('Taken.', pixApiNotificationAnswer),
    ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED'),
  },
});

const noticeOutcome = z.enum(noticeOutcomes).meta({
  description:
    "SIGNALLED: the subscription's workflow will read the PSP · UNKNOWN: no subscription of ours (logged) · ENDED: the subscription's workflow has ended · NOT_THIS_CONNECTION: on a merchant connection's URL only, a subscription of another merchant's (logged, not signalled).",
});

/** The bodies and answers of Pix Automático's notices, shared with a merchant connection's routes. */
export const pixAutomaticoRecNotification = registry.register('PixApiRecNotification', recNotificationBody);
export const pixAutomaticoCobrNotification = registry.register('PixApiCobrNotification', cobrNotificationBody);
export const pixAutomaticoRecAnswer = z.object({
  received: z.literal(true),
  ignored: z.number().int(),
  outcomes: z.array(z.object({ idRec: z.string(), outcome: noticeOutcome })),
});
export const pixAutomaticoCobrAnswer = z.object({
  received: z.literal(true),
  ignored: z.number().int(),
  outcomes: z.array(z.object({ txid: z.string(), outcome: noticeOutcome })),
});

const pixAutomaticoNotice = (what: 'rec' | 'cobr') =>
  "Called by the PSP, not by merchants: the gateway registers `PUT /webhookrec` and `PUT /webhookcobr` of the BCB's API Pix (Pix Automático) with the same URL as `PUT /webhook/{chave}`, " +
  `and the PSP appends \`/${what}\`. The secret and its brake are the \`/pix\` route's (404 on a wrong one; 429 past 10 a minute from one IP). ` +
  (what === 'rec'
    ? "Each recurrence named is looked up by its idRec and its subscription's workflow told to read it (`GET /rec/{idRec}`): the notice's status is never acted on. "
    : "Each cycle charge named is looked up by its txid and its subscription's workflow told to read it (`GET /cobr/{txid}`): the notice's status, attempts and Pix are never acted on. ") +
  'An id of no subscription of ours is logged and answered 200 all the same (UNKNOWN), so the PSP stops retrying it; an item naming no valid id is skipped and counted in `ignored`.';

registry.registerPath({
  method: 'post',
  path: '/webhooks/pix-api/{secret}/rec',
  operationId: 'receivePixAutomaticoRecNotification',
  tags: ['Provider callbacks'],
  summary: 'Pix Automático recurrence notification from the PSP (webhookrec)',
  description: pixAutomaticoNotice('rec'),
  security: security.none,
  request: {
    params: z.object({ secret: z.string().meta({ description: 'PIX_WEBHOOK_SECRET.' }) }),
    body: {
      required: true,
      content: { 'application/json': { schema: pixAutomaticoRecNotification } },
    },
  },
  responses: {
    200: jsonResponse('Taken.', pixAutomaticoRecAnswer),
    ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'post',
  path: '/webhooks/pix-api/{secret}/cobr',
  operationId: 'receivePixAutomaticoCobrNotification',
  tags: ['Provider callbacks'],
  summary: 'Pix Automático cycle charge notification from the PSP (webhookcobr)',
  description: pixAutomaticoNotice('cobr'),
  security: security.none,
  request: {
    params: z.object({ secret: z.string().meta({ description: 'PIX_WEBHOOK_SECRET.' }) }),
    body: {
      required: true,
      content: { 'application/json': { schema: pixAutomaticoCobrNotification } },
    },
  },
  responses: {
    200: jsonResponse('Taken.', pixAutomaticoCobrAnswer),
    ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED'),
  },
});
