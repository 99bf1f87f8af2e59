/**
 * Subscriptions paid by Pix Automático (issue 39). A subscription is a recurrence (`rec`) at the
 * merchant's PSP, charged once per cycle; its workflow (workflows/subscriptions) is the only
 * writer of these rows (db/subscriptions/subscriptionStore.ts).
 *
 * - course_prices gain the period and the retry policy a SUBSCRIPTION price is sold with (null on
 *   the other types; existing SUBSCRIPTION prices become monthly with retries allowed).
 * - subscriptions: one per purchase, its PSP recurrence (id_rec) once created, its state
 *   (core/subscriptions/states.ts) and who ended it.
 * - subscription_cycles: one row per cycle, from the moment its charge is issued: the cobr's txid
 *   (null for journey 3's first cycle, paid by the cob that authorised the recurrence), the
 *   charge row that settles it like any Pix charge (charge_id), the retries asked and the outcome.
 * - charges.subscription_id marks a cycle's charge: settled by the subscription's workflow on the
 *   cobr's record, never by a charge lifecycle (no expiry, no cancel through /charges).
 * - enrolments of a subscription (subscription_id, no checkout) follow its state: PENDING until the
 *   first cycle is paid, ACTIVE, PAST_DUE during retries, SUSPENDED when a cycle failed for good,
 *   CANCELLED with the recurrence (or when it was never authorised).
 */
import type { Migration } from '../migrator';

export const subscriptions: Migration = {
  name: '0045_subscriptions',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE course_prices
        ADD COLUMN interval TEXT CHECK (interval IN ('WEEKLY','MONTHLY','QUARTERLY','SEMIANNUAL','ANNUAL')),
        ADD COLUMN retry_policy TEXT CHECK (retry_policy IN ('NAO_PERMITE','PERMITE_3R_7D'));
      UPDATE course_prices SET interval = 'MONTHLY', retry_policy = 'PERMITE_3R_7D' WHERE type = 'SUBSCRIPTION';
      ALTER TABLE course_prices ADD CONSTRAINT course_prices_subscription_terms
        CHECK ((type = 'SUBSCRIPTION') = (interval IS NOT NULL AND retry_policy IS NOT NULL));

      CREATE TABLE subscriptions (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        course_id UUID NOT NULL REFERENCES courses(id),
        price_id UUID NOT NULL REFERENCES course_prices(id),
        status TEXT NOT NULL DEFAULT 'AWAITING_AUTHORISATION' CHECK (status IN
          ('AWAITING_AUTHORISATION','AUTHORISED','ACTIVE','PAST_DUE','SUSPENDED','CANCELLED','REFUSED','EXPIRED')),
        journey TEXT NOT NULL CHECK (journey IN ('JOURNEY_1','JOURNEY_2','JOURNEY_3')),
        interval TEXT NOT NULL CHECK (interval IN ('WEEKLY','MONTHLY','QUARTERLY','SEMIANNUAL','ANNUAL')),
        retry_policy TEXT NOT NULL CHECK (retry_policy IN ('NAO_PERMITE','PERMITE_3R_7D')),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        first_due_date DATE NOT NULL,
        last_due_date DATE,
        payer_name TEXT NOT NULL,
        payer_document TEXT NOT NULL,
        -- Journey 1 only: the payer's account the authorisation request (solicrec) is sent to.
        payer_account JSONB,
        psp_connection_id UUID,
        id_rec TEXT UNIQUE,
        -- Journey 3: the Pix charge (a cob) whose payment authorises the recurrence and pays cycle 1.
        first_charge_id UUID UNIQUE REFERENCES charges(id),
        qr_copy_paste TEXT,
        authorization_request_id TEXT,
        external_id TEXT,
        metadata JSONB NOT NULL DEFAULT '{}',
        return_url TEXT,
        idempotency_key TEXT,
        cancelled_by TEXT CHECK (cancelled_by IN ('PAYER','MERCHANT','PSP')),
        ending_code TEXT,
        authorised_at TIMESTAMPTZ,
        ended_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX subscriptions_merchant ON subscriptions (merchant_id, created_at DESC, id DESC);

      CREATE TABLE subscription_cycles (
        subscription_id UUID NOT NULL REFERENCES subscriptions(id),
        cycle INTEGER NOT NULL CHECK (cycle >= 1),
        txid TEXT UNIQUE,
        charge_id UUID NOT NULL UNIQUE REFERENCES charges(id),
        due_date DATE NOT NULL,
        settlement_date DATE NOT NULL,
        status TEXT NOT NULL DEFAULT 'ISSUED' CHECK (status IN ('ISSUED','RETRYING','PAID','FAILED','CANCELLED')),
        retries INTEGER NOT NULL DEFAULT 0 CHECK (retries BETWEEN 0 AND 3),
        failure_reason TEXT,
        rejection_code TEXT,
        paid_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (subscription_id, cycle)
      );

      ALTER TABLE charges ADD COLUMN subscription_id UUID REFERENCES subscriptions(id);

      ALTER TABLE enrolments DROP CONSTRAINT enrolments_status_check;
      ALTER TABLE enrolments ADD CONSTRAINT enrolments_status_check
        CHECK (status IN ('PENDING','ACTIVE','PAST_DUE','SUSPENDED','CANCELLED','REVOKED'));
      ALTER TABLE enrolments ALTER COLUMN checkout_id DROP NOT NULL;
      ALTER TABLE enrolments ADD COLUMN subscription_id UUID UNIQUE REFERENCES subscriptions(id);
      ALTER TABLE enrolments ADD CONSTRAINT enrolments_one_source
        CHECK ((checkout_id IS NULL) <> (subscription_id IS NULL));
    `);
  },
};
