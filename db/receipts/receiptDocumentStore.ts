/** The receipt_documents table (each rendered receipt PDF, by the key of everything it shows): its one writer and reader. */
import { QueryTypes, type Sequelize } from 'sequelize';

export async function findPdf(sequelize: Sequelize, cacheKey: string): Promise<Buffer | null> {
  const rows = await sequelize.query<{ pdf: Buffer }>('SELECT pdf FROM receipt_documents WHERE cache_key = $1', {
    bind: [cacheKey],
    type: QueryTypes.SELECT,
  });
  return rows[0]?.pdf ?? null;
}

/** Stores the PDF under its key unless one is stored already; answers whether this one was. */
export async function storePdf(
  sequelize: Sequelize,
  doc: { cacheKey: string; kind: string; documentId: string; digest: string; pdf: Buffer },
): Promise<boolean> {
  const inserted = await sequelize.query<{ cache_key: string }>(
    `INSERT INTO receipt_documents (cache_key, kind, document_id, digest, pdf, byte_size)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (cache_key) DO NOTHING RETURNING cache_key`,
    {
      bind: [doc.cacheKey, doc.kind, doc.documentId, doc.digest, doc.pdf, doc.pdf.byteLength],
      type: QueryTypes.SELECT,
    },
  );
  return inserted.length > 0;
}
