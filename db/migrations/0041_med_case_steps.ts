/**
 * What a merchant sees of a MED case besides the infraction row (issue 38, deadlines the merchant
 * sees): the deadline alerts sent (one row per alert, 48, 24 or 6 hours before `deadline_at`: the
 * row is what makes an alert go once, and the timeline's record of it), the merchant's defence
 * (its text, sent to the PSP as the justification) and the evidence files stored with it in the
 * object store (checked by their bytes; the PSP takes text only, so they stay on our side).
 */
import type { Migration } from '../migrator';

export const medCaseSteps: Migration = {
  name: '0041_med_case_steps',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE med_infraction_alerts (
        infraction_id UUID NOT NULL REFERENCES med_infractions(id),
        hours_left INTEGER NOT NULL CHECK (hours_left > 0),
        sent_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (infraction_id, hours_left)
      );
      CREATE TABLE med_infraction_defences (
        infraction_id UUID PRIMARY KEY REFERENCES med_infractions(id),
        text TEXT NOT NULL,
        submitted_by UUID NOT NULL,
        submitted_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE med_infraction_evidence (
        id UUID PRIMARY KEY,
        infraction_id UUID NOT NULL REFERENCES med_infractions(id),
        object_key TEXT NOT NULL UNIQUE,
        content_type TEXT NOT NULL,
        size_bytes INTEGER NOT NULL CHECK (size_bytes > 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX med_infraction_evidence_infraction ON med_infraction_evidence (infraction_id, created_at);
    `);
  },
};
