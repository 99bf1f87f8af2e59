/**
 * Body of an API Pix notification: `{"pix": [Pix, ...]}` (the BCB document's callback of
 * PUT /webhook/{chave}). Only what the gateway reads is checked, each against the standard's
 * format; anything else a PSP sends (devolucoes, componentesValor, its own extensions) passes.
 */
import { z } from 'zod';

/** A PSP batches Pix in one notification; more than this in one body is not a notification. */
export const MAX_NOTIFIED_PIX = 1000;

export const notifiedPixSchema = z
  .object({
    endToEndId: z
      .string()
      .regex(/^[a-zA-Z0-9]{32}$/)
      .meta({ description: 'The Pix (32 alphanumerics).', example: 'E12345678202611221500abcdefghijk' }),
    txid: z
      .string()
      .regex(/^[a-zA-Z0-9]{1,35}$/)
      .optional()
      .meta({
        description: 'The cob it paid; ours are the 32 hex digits of our charge id.',
        example: '0f6c3e0a8a4b4e0e9d4f2b1c3a5e7d90',
      }),
    valor: z
      .string()
      .regex(/^\d{1,10}\.\d{2}$/)
      .meta({ example: '123.45' }),
    chave: z.string().max(77).optional(),
    horario: z.iso.datetime({ offset: true }),
    // Read leniently where it is used (a PSP extension, see pixApi/schemas.ts): never a 400.
    pagador: z
      .unknown()
      .optional()
      .meta({ description: "Who paid: a PSP extension (the sandbox's), read when well formed." }),
  })
  .passthrough();

/**
 * Efí notifies a Pix we sent on the same route (`tipo: SOLICITACAO`): only its idEnvio is read,
 * as a reason to ask Efí for the send's record; its status, amount and returns are never trusted.
 */
export const sentPixNoticeSchema = z
  .object({
    tipo: z.literal('SOLICITACAO').optional(),
    gnExtras: z
      .object({
        idEnvio: z
          .string()
          .regex(/^[a-zA-Z0-9]{1,35}$/)
          .meta({ description: 'The send it is about: ours are the 32 hex digits of our transfer id.' }),
        // An ISO 20022 reason code of a NAO_REALIZADO: a label for the merchant, never a decision.
        erro: z
          .object({ codigo: z.unknown().optional() })
          .passthrough()
          .nullish()
          .meta({ description: 'A NAO_REALIZADO: its ISO 20022 reason code (a label; read when well formed).' }),
      })
      .passthrough(),
    status: z.string().max(40).optional(),
    // Only whether it is there: a notice naming returns is followed by a run that reads them from Efí.
    devolucoes: z.unknown().optional().meta({
      description:
        "Returns of the sent Pix by its recipient (Efí). When present and not empty, Efí's record is read and each return credited once; never taken from the notice.",
    }),
  })
  .passthrough()
  .meta({ description: 'A notice about a Pix the gateway sent (Efí): read back from Efí before anything moves.' });

export const pixNotificationBody = z
  .object({
    pix: z
      .array(z.union([sentPixNoticeSchema, notifiedPixSchema]))
      .min(1)
      .max(MAX_NOTIFIED_PIX),
  })
  .meta({
    description:
      'An API Pix notification: the Pix received (or, at Efí, sent), each a claim the gateway checks with the PSP before money moves.',
  });

/** A PSP batches notifications; as for Pix, more than this in one body is not a notification. */
export const MAX_NOTIFIED_RECURRENCES = 1000;

/**
 * Body of a webhookrec notification (the BCB document's `RecNotification`, posted to the
 * registered URL + "/rec"): `{"recs": [{idRec, status, atualizacao, …}]}`. Only the shape and the
 * ids are checked here; an item whose idRec is not one is skipped (core/pixAutomatico/notifications.ts).
 */
export const recNotificationBody = z
  .object({
    recs: z
      .array(
        z
          .object({
            idRec: z.string().max(35).meta({ description: 'The recurrence (29 alphanumerics).' }),
            status: z.string().max(20).optional().meta({ description: 'A hint only: the rec is read with GET /rec.' }),
          })
          .passthrough(),
      )
      .max(MAX_NOTIFIED_RECURRENCES),
  })
  .passthrough();

/**
 * Body of a webhookcobr notification (`CobRNotification`, posted to the registered URL +
 * "/cobr"): `{"cobsr": [{txid, idRec, status, tentativas, …}]}`; the cobr is read with GET /cobr.
 */
export const cobrNotificationBody = z
  .object({
    cobsr: z
      .array(
        z
          .object({
            txid: z.string().max(35).meta({ description: 'The cycle charge: ours are 32 hex digits.' }),
            idRec: z.string().max(35).optional(),
            status: z.string().max(20).optional().meta({ description: 'A hint only.' }),
          })
          .passthrough(),
      )
      .max(MAX_NOTIFIED_RECURRENCES),
  })
  .passthrough();
