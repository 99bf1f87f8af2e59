/**
 * API Pix answers of the Pix Automático routes (release 2.9.0) as zod schemas: RecGerada /
 * RecCompleta, PayloadLocationRecGerada, SolicRecCompleta, CobRGerada / CobRCompleta, the
 * webhooks. Loose where the document is loose or contradicts itself, strict where the gateway
 * acts on the value:
 *  - statuses, periods, policies and journeys are enums: an unknown one is an answer we cannot
 *    act on (PROVIDER_OUTCOME_UNKNOWN), not a default;
 *  - extra fields are allowed (z.object drops them): PSPs add their own;
 *  - `atualizacao` (the status history) is not read: the document's own examples write its items
 *    with `nome` where the schema says `status`, and the current `status` says what we need;
 *  - RecGerada has no `politicaRetentativa` in the schema though every example carries it, and
 *    the examples put `tipoJornada` inside `dadosJornada` where the schema has it in `ativacao`:
 *    both are read where either puts them.
 */
import { z } from 'zod';
import { COBR_TXID, ID_REC } from '../../../core/pixAutomatico/notifications';
import { END_TO_END_ID, PIX_AMOUNT, PIX_TXID } from './schemas';

const amount = z.string().regex(PIX_AMOUNT);
const timestamp = z.iso.datetime({ offset: true });
const date = z.iso.date();
const journey = z.enum(['JORNADA_1', 'JORNADA_2', 'JORNADA_3', 'JORNADA_4', 'AGUARDANDO_DEFINICAO']);
const retryPolicy = z.enum(['NAO_PERMITE', 'PERMITE_3R_7D']);
const party = z.enum(['PSP_PAGADOR', 'USUARIO_PAGADOR', 'PSP_RECEBEDOR', 'USUARIO_RECEBEDOR']);
const code = z.string().min(1).max(4);

/** PayloadLocationRecGerada / PayloadLocationRecCompleta. */
export const locRecSchema = z.object({
  id: z.number().int().positive(),
  // Scheme-less in the document's own examples ("pix.example.com/qr/v2/rec/…"): read as text.
  location: z.string().min(1).max(77),
  criacao: timestamp,
  tipo: z.literal('rec').optional(),
  idRec: z.string().regex(ID_REC).optional(),
});
export type LocRec = z.infer<typeof locRecSchema>;

const devedorSchema = z.union([
  z.object({ cpf: z.string().regex(/^\d{11}$/), nome: z.string() }),
  z.object({ cnpj: z.string().regex(/^[0-9A-Z]{14}$/), nome: z.string() }),
]);

/** RecGerada (POST, PATCH) and RecCompleta (GET /rec/{idRec}), RecCompletaPesquisada (GET /rec). */
export const recSchema = z.object({
  idRec: z.string().regex(ID_REC),
  vinculo: z.object({
    contrato: z.string().min(1).max(35),
    // Not acted on, and a PSP may mask the document: a devedor we cannot read is left out.
    devedor: devedorSchema.optional().catch(undefined),
    objeto: z.string().optional(),
  }),
  calendario: z.object({
    dataInicial: date,
    dataFinal: date.optional(),
    periodicidade: z.enum(['SEMANAL', 'MENSAL', 'TRIMESTRAL', 'SEMESTRAL', 'ANUAL']),
  }),
  valor: z.object({ valorRec: amount.optional(), valorMinimoRecebedor: amount.optional() }).optional(),
  politicaRetentativa: retryPolicy.optional(),
  status: z.enum(['CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA']),
  loc: locRecSchema.optional(),
  ativacao: z
    .object({
      tipoJornada: journey.optional(),
      dadosJornada: z
        .object({ txid: z.string().regex(COBR_TXID).optional(), tipoJornada: journey.optional() })
        .optional(),
    })
    .optional(),
  pagador: z
    .object({
      ispbParticipante: z
        .string()
        .regex(/^[0-9A-Z]{8}$/)
        .optional(),
    })
    .optional()
    // Informative (which PSP the payer uses): an odd one is left out rather than failing the read.
    .catch(undefined),
  encerramento: z
    .object({
      rejeicao: z.object({ codigo: code }).optional(),
      cancelamento: z.object({ solicitante: party, codigo: code }).optional(),
    })
    .optional(),
  dadosQR: z.object({ jornada: journey.optional(), pixCopiaECola: z.string().max(512).optional() }).optional(),
});
export type Rec = z.infer<typeof recSchema>;

const paginacaoSchema = z.object({
  paginaAtual: z.number().int().nonnegative(),
  itensPorPagina: z.number().int().positive(),
  quantidadeDePaginas: z.number().int().nonnegative(),
  quantidadeTotalDeItens: z.number().int().nonnegative(),
});

/** RecsConsultadas (GET /rec). */
export const recPageSchema = z.object({
  parametros: z.object({ paginacao: paginacaoSchema }),
  recs: z.array(recSchema),
});

/** SolicRecCompleta. */
export const solicRecSchema = z.object({
  idSolicRec: z.string().regex(/^[a-zA-Z0-9]{29}$/),
  idRec: z.string().regex(ID_REC),
  status: z.enum(['CRIADA', 'ENVIADA', 'RECEBIDA', 'ACEITA', 'REJEITADA', 'EXPIRADA', 'CANCELADA']),
  calendario: z.object({ dataExpiracaoSolicitacao: timestamp }),
});
export type SolicRec = z.infer<typeof solicRecSchema>;

const attemptStatus = z.enum(['SOLICITADA', 'AGENDADA', 'PAGA', 'CANCELADA', 'REJEITADA', 'EXPIRADA']);

/** CobRGerada (PUT, POST, PATCH) and CobRCompleta (GET, POST …/retentativa/{data}). */
export const cobrSchema = z.object({
  idRec: z.string().regex(ID_REC),
  txid: z.string().regex(COBR_TXID),
  status: z.enum(['CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA']),
  valor: z.object({ original: amount }),
  calendario: z.object({ dataDeVencimento: date, criacao: date.optional() }),
  politicaRetentativa: retryPolicy.optional(),
  ajusteDiaUtil: z.boolean().optional(),
  tentativas: z
    .array(
      z.object({
        dataLiquidacao: date,
        tipo: z.enum(['AGND', 'NTAG', 'RIFL']),
        status: attemptStatus,
        endToEndId: z.string().regex(END_TO_END_ID).optional(),
        rejeicao: z.object({ codigo: code }).optional(),
      }),
    )
    .optional(),
  encerramento: z
    .object({
      rejeicao: z.object({ codigo: code }).optional(),
      cancelamento: z.object({ solicitante: party, codigo: code }).optional(),
    })
    .optional(),
  pix: z
    .array(
      z.object({
        endToEndId: z.string().regex(END_TO_END_ID),
        txid: z.string().regex(PIX_TXID).optional(),
        valor: amount,
        horario: timestamp,
      }),
    )
    .optional(),
});
export type CobR = z.infer<typeof cobrSchema>;

/** WebhookRecCompleto / WebhookCobRCompleto. */
export const recWebhookSchema = z.object({ webhookUrl: z.string().min(1), criacao: timestamp.optional() });
export type RecWebhook = z.infer<typeof recWebhookSchema>;
