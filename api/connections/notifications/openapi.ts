/** OpenAPI for a merchant connection's notification routes (router.ts: /pix, /rec, /cobr, /boletos), mounted at /webhooks/pix-api/connections. */
import { z } from 'zod';
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';
import {
  pixApiNotification,
  pixApiNotificationAnswer,
  pixAutomaticoCobrAnswer,
  pixAutomaticoCobrNotification,
  pixAutomaticoRecAnswer,
  pixAutomaticoRecNotification,
} from '../../charges/pixApiCallbacks/openapi';

registry.registerPath({
  method: 'post',
  path: '/webhooks/pix-api/connections/{connectionId}/{secret}/pix',
  operationId: 'receiveConnectionPixApiNotification',
  tags: ['Provider callbacks'],
  summary: "API Pix notification from a merchant's own PSP (the Pix received on its connection's key)",
  description:
    "Called by a connected merchant's PSP, not by merchants: `gateway connection webhook` registers `<PUBLIC_BASE_URL>/webhooks/pix-api/connections/<connection id>/<its webhook path secret>` with `PUT /webhook/{chave}` for the connection's Pix key, and the PSP appends `/pix`. " +
    'The connection must be active and the secret its own: an unknown id, a revoked connection or a wrong secret answers 404, like a route that does not exist, and past 10 of them a minute from one client IP, 429 RATE_LIMITED (the right secret is never limited). ' +
    'A connection revoked is refused within a minute (each API process keeps an opened secret in memory for up to 60 s). ' +
    "Each Pix takes the same claim path as the platform's notification route (`receivePixApiNotification`), on the connection's merchant only: a Pix whose txid names another merchant's charge is not claimed and is answered 200 with NOT_THIS_CONNECTION. " +
    "Nothing is credited until the PSP's own records confirm the amount, the txid and the key. 200 only once every Pix of the body is durable.",
  security: security.none,
  request: {
    params: z.object({
      connectionId: z.uuid().meta({ description: "The merchant's PSP connection (`gateway connection show`)." }),
      secret: z
        .string()
        .meta({ description: "The connection's webhook path secret (never shown by any route or command)." }),
    }),
    body: { required: true, content: { 'application/json': { schema: pixApiNotification } } },
  },
  responses: {
    200: jsonResponse('Taken.', pixApiNotificationAnswer),
    ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED'),
  },
});

const boletoNotice = z.object({
  notification: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/)
    .meta({ description: "Efí's notification token (GET /v1/notification/:token)." }),
});

registry.registerPath({
  method: 'post',
  path: '/webhooks/pix-api/connections/{connectionId}/{secret}/boletos/{chargeId}',
  operationId: 'receiveConnectionBoletoNotification',
  tags: ['Provider callbacks'],
  summary: "Efí API Cobranças notification of a boleto issued on a merchant's own account",
  description:
    "Called by a connected merchant's PSP, not by merchants: a connected merchant's boleto is issued at its own Efí account with this URL as its `notification_url` (`chargeId` is our charge). " +
    'The same connection and secret checks as the Pix route (404 for an unknown id, a revoked connection or a wrong secret; 429 RATE_LIMITED past 10 wrong ones a minute). ' +
    "The notification is only a reason to look: the boleto is read at the merchant's account, and credited only if that record is paid. A charge of another merchant is answered NOT_THIS_CONNECTION. " +
    'Efí posts the token form-encoded (`notification=<token>`); the same field as JSON is taken too. Any other Content-Type is 400 VALIDATION_ERROR.',
  security: security.none,
  request: {
    params: z.object({
      connectionId: z.uuid().meta({ description: "The merchant's PSP connection." }),
      secret: z.string().meta({ description: "The connection's webhook path secret." }),
      chargeId: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/)
        .meta({ description: 'Our charge id (the boleto).' }),
    }),
    body: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': { schema: boletoNotice },
        'application/json': { schema: boletoNotice },
      },
    },
  },
  responses: {
    200: jsonResponse('Taken.', z.object({ outcome: z.string() })),
    ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED'),
  },
});

const connectionParams = z.object({
  connectionId: z.uuid().meta({ description: "The merchant's PSP connection." }),
  secret: z.string().meta({ description: "The connection's webhook path secret." }),
});

const connectionAutomaticoNotice = (what: 'rec' | 'cobr') =>
  "Called by a connected merchant's PSP, not by merchants: `gateway connection webhook` (and `POST /dashboard/connection/webhook`) registers `PUT /webhookrec` and `PUT /webhookcobr` of the BCB's API Pix (Pix Automático) at the connection's notification URL, as its `PUT /webhook/{chave}`, " +
  `and the PSP appends \`/${what}\`. The same connection and secret checks as the \`/pix\` route (404 for an unknown id, a revoked connection or a wrong secret; 429 RATE_LIMITED past 10 wrong ones a minute). ` +
  (what === 'rec'
    ? "Each recurrence named is looked up by its idRec among the connection's merchant's subscriptions and its workflow told to read it (`GET /rec/{idRec}` at the merchant's account): the notice's status is never acted on. "
    : "Each cycle charge named is looked up by its txid among the connection's merchant's subscriptions and its workflow told to read it (`GET /cobr/{txid}` at the merchant's account): the notice's status, attempts and Pix are never acted on. ") +
  "An id of another merchant's subscription is answered 200 NOT_THIS_CONNECTION and not acted on; one of no subscription of ours 200 UNKNOWN (both logged, so the PSP stops retrying); an item naming no valid id is skipped and counted in `ignored`. " +
  "The platform's twin: `receivePixAutomatico" +
  (what === 'rec' ? 'Rec' : 'Cobr') +
  'Notification`.';

registry.registerPath({
  method: 'post',
  path: '/webhooks/pix-api/connections/{connectionId}/{secret}/rec',
  operationId: 'receiveConnectionPixAutomaticoRecNotification',
  tags: ['Provider callbacks'],
  summary: "Pix Automático recurrence notification from a merchant's own PSP (webhookrec)",
  description: connectionAutomaticoNotice('rec'),
  security: security.none,
  request: {
    params: connectionParams,
    body: { required: true, content: { 'application/json': { schema: pixAutomaticoRecNotification } } },
  },
  responses: {
    200: jsonResponse('Taken.', pixAutomaticoRecAnswer),
    ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'post',
  path: '/webhooks/pix-api/connections/{connectionId}/{secret}/cobr',
  operationId: 'receiveConnectionPixAutomaticoCobrNotification',
  tags: ['Provider callbacks'],
  summary: "Pix Automático cycle charge notification from a merchant's own PSP (webhookcobr)",
  description: connectionAutomaticoNotice('cobr'),
  security: security.none,
  request: {
    params: connectionParams,
    body: { required: true, content: { 'application/json': { schema: pixAutomaticoCobrNotification } } },
  },
  responses: {
    200: jsonResponse('Taken.', pixAutomaticoCobrAnswer),
    ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED'),
  },
});
