/** OpenAPI for the API Pix notification route (router.ts), mounted at /webhooks/pix-api. */
import { z } from 'zod';
import { callbackOutcome } from '../callbacks/schema';
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';
import { pixNotificationBody } from './schema';

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
