/**
 * A MED case's defence and timeline (issue 38). The merchant uploads evidence files straight to
 * the object store (presigned PUT under `med-evidence/<infraction id>/<uuid>`, like avatars: file
 * bytes never pass through a JSON route), then submits the defence: its text and the keys of its
 * files. Every file is checked first (this infraction's key, uploaded, at most
 * EVIDENCE_MAX_BYTES, a PDF, PNG or JPEG by its bytes); a refused one is deleted and nothing is
 * stored. Then the defence and its files are stored, and the text goes to the PSP as the
 * justification of a REJECT (the same decideInfraction update as POST .../analysis). The PSP
 * takes text only (Efí: `{analise, justificativa}`), so the files stay with us as evidence.
 * A defence stored whose sending failed (503) is sent by the workflow at the deadline.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { detectEvidenceType, EVIDENCE_SNIFF_BYTES } from '../../core/storage/evidenceType';
import { isValidKeySegment, type ObjectStore } from '../../core/storage/objectStore';
import {
  medCaseStore,
  presentInfraction,
  type DefenceRow,
  type EvidenceRow,
  type MedInfractionRow,
  type MedInfractionView,
} from '../../db/med';
import { refundStore } from '../../db/refunds';
import { ApiError } from '../errors/apiError';
import {
  EVIDENCE_MAX_BYTES,
  EVIDENCE_UPLOAD_TTL_SECONDS,
  type DefenceBody,
  type EvidenceUploadBody,
  type TimelineView,
} from './schema';

export const defenceErrors = {
  alreadySubmitted: () =>
    new ApiError(409, 'DEFENCE_ALREADY_SUBMITTED', 'a defence was already submitted for this infraction'),
  evidenceInvalid: (key: string, reason: string) =>
    new ApiError(400, 'EVIDENCE_INVALID', `evidence ${key}: ${reason}`, { key }),
};

const iso = (d: Date) => new Date(d).toISOString();

function evidencePrefix(infractionId: string): string {
  // Our own uuid: one that cannot be a key segment is our bug, not the caller's.
  if (!isValidKeySegment(infractionId)) throw new Error('infraction id cannot be used in an object key');
  return `med-evidence/${infractionId}/`;
}

export async function presignEvidence(store: ObjectStore, infractionId: string, body: EvidenceUploadBody) {
  const key = `${evidencePrefix(infractionId)}${crypto.randomUUID()}`;
  const issuedAt = Date.now();
  const put = await store.presignPut(key, body.contentType, EVIDENCE_MAX_BYTES, EVIDENCE_UPLOAD_TTL_SECONDS);
  return {
    uploadUrl: put.url,
    key,
    method: 'PUT' as const,
    headers: put.headers,
    expiresAt: new Date(Math.floor(issuedAt / 1000) * 1000 + EVIDENCE_UPLOAD_TTL_SECONDS * 1000).toISOString(),
    maxBytes: EVIDENCE_MAX_BYTES,
  };
}

/**
 * Checks every evidence file of the defence (none stored, none changed but the deletion of a
 * refused file); answers what each is, by its bytes.
 */
export async function checkEvidence(store: ObjectStore, infractionId: string, keys: string[]) {
  const prefix = evidencePrefix(infractionId);
  const checked = [];
  for (const key of keys) {
    if (!key.startsWith(prefix))
      throw defenceErrors.evidenceInvalid(key, 'not a key of this infraction (POST /med/infractions/{id}/evidence)');
    const head = await store.head(key);
    if (!head) throw defenceErrors.evidenceInvalid(key, 'nothing was uploaded under this key; PUT the file first');
    if (head.size > EVIDENCE_MAX_BYTES || head.size === 0) {
      await store.delete(key);
      throw defenceErrors.evidenceInvalid(key, `the file must be 1 to ${EVIDENCE_MAX_BYTES} bytes; it was deleted`);
    }
    const start = await store.readStart(key, EVIDENCE_SNIFF_BYTES);
    const contentType = start ? detectEvidenceType(start) : null;
    if (!contentType) {
      await store.delete(key);
      throw defenceErrors.evidenceInvalid(
        key,
        'the file is not a PDF, PNG or JPEG (read from its bytes); it was deleted',
      );
    }
    checked.push({ id: crypto.randomUUID(), key, contentType, sizeBytes: head.size });
  }
  return checked;
}

/** Stores the defence and its checked files; false when one was already stored. */
export function storeDefence(
  sequelize: Sequelize,
  row: MedInfractionRow,
  userId: string,
  body: DefenceBody,
  evidence: Awaited<ReturnType<typeof checkEvidence>>,
): Promise<boolean> {
  return medCaseStore.insertDefence(sequelize, {
    infractionId: row.id,
    text: body.text,
    submittedBy: userId,
    evidence,
  });
}

function presentDefence(defence: DefenceRow, evidence: EvidenceRow[]) {
  return {
    text: defence.text,
    submittedBy: defence.submitted_by,
    submittedAt: iso(defence.submitted_at),
    evidence: evidence.map((e) => ({
      id: e.id,
      contentType: e.content_type as 'application/pdf' | 'image/png' | 'image/jpeg',
      sizeBytes: Number(e.size_bytes),
      uploadedAt: iso(e.created_at),
    })),
  };
}

export async function defenceOf(sequelize: Sequelize, infractionId: string) {
  const defence = await medCaseStore.findDefence(sequelize, infractionId);
  return defence ? presentDefence(defence, await medCaseStore.evidenceOf(sequelize, infractionId)) : null;
}

/**
 * The case's steps with their times, from stored rows only (never from Temporal), oldest first.
 * `view`: the case as the reader sees it (api/med/partyView.ts): a split partner's BLOCKED step is
 * its own hold, and the defence's author (the owner's user) is not shown to it.
 */
export async function timelineOf(
  sequelize: Sequelize,
  row: MedInfractionRow,
  view: MedInfractionView = presentInfraction(row),
  partner = false,
): Promise<TimelineView> {
  const steps: TimelineView['steps'] = [{ step: 'OPENED', at: view.openedAt }];
  if (row.blocked_at) steps.push({ step: 'BLOCKED', at: iso(row.blocked_at), amountCents: view.blockedAmountCents });
  for (const alert of await medCaseStore.alertsOf(sequelize, row.id))
    steps.push({ step: 'ALERT_SENT', at: iso(alert.sent_at), hoursLeft: Number(alert.hours_left) });
  const stored = await defenceOf(sequelize, row.id);
  const defence = stored && partner ? { ...stored, submittedBy: null } : stored;
  if (defence)
    steps.push({ step: 'DEFENCE_SUBMITTED', at: defence.submittedAt, evidenceFiles: defence.evidence.length });
  if (view.decidedAt && view.decision)
    steps.push({
      step: 'DECIDED',
      at: view.decidedAt,
      decision: view.decision,
      decidedBy: view.decidedBy ?? undefined,
    });
  // MED 2.0: the defence at the PSP (from the REJECT the PSP then decides), and its outcome.
  if (view.decidedAt && view.decision === 'REJECT' && (row.status === 'IN_DEFENCE' || view.pspOutcome))
    steps.push({ step: 'IN_DEFENCE', at: view.decidedAt });
  if (view.pspOutcome && view.pspDecidedAt)
    steps.push({ step: 'PSP_DECIDED', at: view.pspDecidedAt, outcome: view.pspOutcome });
  if (row.refund_id) {
    const refund = await refundStore.findRefund(row.refund_id);
    if (refund)
      steps.push({
        step: 'DEVOLUCAO',
        at: iso(refund.settledAt ?? refund.releasedAt ?? refund.createdAt),
        amountCents: Number(refund.amountCents),
        status: refund.status,
      });
  }
  // Stable on equal times: the order above is the order things happen in.
  const order = steps.map((s, i) => ({ s, i }));
  order.sort((a, b) => a.s.at.localeCompare(b.s.at) || a.i - b.i);
  return {
    infractionId: row.id,
    status: row.status,
    deadlineAt: view.deadlineAt,
    steps: order.map((o) => o.s),
    defence,
  };
}
