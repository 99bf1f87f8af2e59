/**
 * What API Pix requests may carry, per the BCB document's schemas (CobSolicitada, CobRevisada,
 * DevolucaoSolicitada, WebhookSolicitado and the list queries), with the patterns read as the
 * document's descriptions mean them: whole-value matches (the document's patterns are not anchored,
 * so "!!!" followed by 26 letters would pass them literally). Unknown body properties are ignored,
 * as the standard lets clients send fields a PSP does not know. A broken rule becomes a violação
 * named after the property ("cob.valor.original"), all of them in one answer.
 */
import { z } from 'zod';
import { PixProblem, type ProblemType, type Violacao } from './problem';
import { VALOR_RE } from './valor';

export const TXID_RE = /^[a-zA-Z0-9]{26,35}$/;
export const E2E_RE = /^[a-zA-Z0-9]{32}$/;
export const DEVOLUCAO_ID_RE = /^[a-zA-Z0-9]{1,35}$/;
export const CPF_RE = /^\d{11}$/;
/** Letters too: the alphanumeric CNPJ the Receita Federal issues from 2026. */
export const CNPJ_RE = /^[0-9A-Z]{14}$/;
/** The document's int32 fields (expiracao, revisao, paginaAtual). */
export const INT32_MAX = 2_147_483_647;

const valor = z.string().regex(VALOR_RE, 'um valor decimal com ponto e duas casas, como "12.34"');
/** A positive amount: "0.00" is refused by name (the standard lists "valor.original é zero" as a violação). */
const positiveValor = valor.refine((v) => !VALOR_RE.test(v) || Number(v) > 0, 'maior que zero');

/** PessoaFisica or PessoaJuridica: a name and exactly one of cpf and cnpj. */
const devedor = z
  .object({
    cpf: z.string().regex(CPF_RE, '11 dígitos').optional(),
    cnpj: z.string().regex(CNPJ_RE, '14 caracteres, dígitos ou letras maiúsculas').optional(),
    nome: z.string().max(200),
  })
  .refine((d) => (d.cpf === undefined) !== (d.cnpj === undefined), { message: 'exatamente um de cpf e cnpj' });

const calendario = z.object({
  expiracao: z.number().int().positive('maior que zero').max(INT32_MAX).optional(),
});

const infoAdicionais = z.array(z.object({ nome: z.string().max(50), valor: z.string().max(200) })).max(50);

const chave = z.string().min(1).max(77);
const solicitacaoPagador = z.string().max(140);
/** `retirada` (Pix Saque/Troco) parses here and is refused later, as a product this PSP does not offer. */
const valorCob = {
  original: positiveValor,
  modalidadeAlteracao: z.union([z.literal(0), z.literal(1)]).optional(),
  retirada: z.unknown().optional(),
};

/** CobSolicitada (PUT /cob/{txid}, POST /cob): valor, chave and calendario are required. */
export const cobCreateSchema = z.object({
  calendario,
  devedor: devedor.optional(),
  loc: z.unknown().optional(),
  valor: z.object(valorCob),
  chave,
  solicitacaoPagador: solicitacaoPagador.optional(),
  infoAdicionais: infoAdicionais.optional(),
});
export type CobCreateBody = z.output<typeof cobCreateSchema>;

/** CobRevisada (PATCH /cob/{txid}): every field optional; status only to remove the cob. */
export const cobReviseSchema = z.object({
  calendario: calendario.optional(),
  devedor: devedor.optional(),
  loc: z.unknown().optional(),
  valor: z.object({ ...valorCob, original: valorCob.original.optional() }).optional(),
  chave: chave.optional(),
  solicitacaoPagador: solicitacaoPagador.optional(),
  infoAdicionais: infoAdicionais.optional(),
  status: z.literal('REMOVIDA_PELO_USUARIO_RECEBEDOR').optional(),
});
export type CobReviseBody = z.output<typeof cobReviseSchema>;

export const devolucaoSchema = z.object({
  valor: positiveValor,
  natureza: z.enum(['ORIGINAL', 'RETIRADA']).optional(),
  descricao: z.string().max(140).optional(),
});

export const webhookSchema = z.object({
  webhookUrl: z
    .url({ protocol: /^https?$/ })
    .max(2_000)
    // The PSP POSTs to webhookUrl + "/pix": a query or a fragment would swallow that suffix.
    .refine((u) => !/[?#]/.test(u), 'sem query nem fragmento: o PSP acrescenta "/pix" ao final'),
});

/**
 * A body the schema refuses, as the `problem` type with one violação per issue. `prefix` names the
 * object ("cob", "devolucao", "webhook"), as the standard's own examples do ("cob.valor.original").
 */
export function parseBody<T extends z.ZodType>(
  schema: T,
  body: unknown,
  problem: ProblemType,
  prefix: string,
): z.output<T> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new PixProblem(problem, 'O corpo da requisição deve ser um objeto JSON (Content-Type: application/json).', [
      { razao: 'O corpo da requisição não é um objeto JSON.', propriedade: prefix },
    ]);
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new PixProblem(
    problem,
    'A requisição não respeita o schema.',
    result.error.issues.map((issue) => violation(prefix, issue)),
  );
}

function violation(prefix: string, issue: z.ZodError['issues'][number]): Violacao {
  const propriedade = [prefix, ...issue.path.map(String)].join('.');
  return { razao: `O campo ${propriedade} não respeita o schema: ${issue.message}.`, propriedade };
}
