/**
 * The marketplace: courses with prices, modules and lessons; checkouts (partner P0
 * checkouts and application-API checkout sessions are one table, one lifecycle); enrolments
 * created when a checkout is paid; lesson progress; certificates. And the merchant's branding for
 * the hosted checkout page.
 *
 * - A checkout is backed by exactly one charge (charge_id, unique), issued through the one charge
 *   path; the charge lifecycle moves the checkout (paid, expired, cancelled, refunded). The row is
 *   written in the same transaction as its charge, so there is never one without the other.
 * - `status` is the P0 status; a checkout session's status is derived from it and `opened_at`
 *   (PENDING → CREATED or OPENED, PAID/REFUNDED → COMPLETED, EXPIRED/CANCELLED → EXPIRED).
 * - Enrolments are unique per (checkout, course): a payment reported any number of times enrols
 *   once. Revocation keeps the row (REVOKED), so history is never lost.
 * - A certificate is unique per enrolment.
 */
import type { Migration } from '../migrator';

export const marketplaceCheckouts: Migration = {
  name: '0020_marketplace_checkouts',
  async up({ context: sequelize }) {
    await sequelize.query(`
      ALTER TABLE merchants
        ADD COLUMN brand_logo_url TEXT,
        ADD COLUMN brand_color TEXT CHECK (brand_color ~ '^#[0-9a-fA-F]{6}$');

      CREATE TABLE courses (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        title TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        thumbnail_url TEXT,
        status TEXT NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'PUBLISHED', 'ARCHIVED')),
        access_type TEXT NOT NULL CHECK (access_type IN ('LIFETIME', 'SUBSCRIPTION')),
        published_at TIMESTAMPTZ,
        archived_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX courses_merchant ON courses (merchant_id, created_at DESC, id DESC);

      CREATE TABLE course_prices (
        id UUID PRIMARY KEY,
        course_id UUID NOT NULL REFERENCES courses(id),
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        type TEXT NOT NULL CHECK (type IN ('ONE_TIME', 'SUBSCRIPTION', 'MULTIPLE_PAYMENTS')),
        active BOOLEAN NOT NULL DEFAULT TRUE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX course_prices_course ON course_prices (course_id, created_at);

      CREATE TABLE course_modules (
        id UUID PRIMARY KEY,
        course_id UUID NOT NULL REFERENCES courses(id),
        title TEXT NOT NULL,
        position INTEGER NOT NULL CHECK (position >= 0),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX course_modules_course ON course_modules (course_id, position);

      CREATE TABLE course_lessons (
        id UUID PRIMARY KEY,
        course_id UUID NOT NULL REFERENCES courses(id),
        module_id UUID NOT NULL REFERENCES course_modules(id),
        title TEXT NOT NULL,
        position INTEGER NOT NULL CHECK (position >= 0),
        content_url TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE INDEX course_lessons_module ON course_lessons (module_id, position);
      CREATE INDEX course_lessons_course ON course_lessons (course_id);

      CREATE TABLE checkouts (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        -- P0: created by a partner on POST /v1/checkouts; SESSION: POST /checkout/sessions.
        kind TEXT NOT NULL CHECK (kind IN ('P0', 'SESSION')),
        charge_id UUID NOT NULL UNIQUE REFERENCES charges(id),
        status TEXT NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'PAID', 'EXPIRED', 'CANCELLED', 'REFUNDED')),
        amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
        paid_amount_cents BIGINT,
        external_id TEXT,
        return_url TEXT,
        completion_url TEXT,
        metadata JSONB NOT NULL DEFAULT '{}'::jsonb,
        idempotency_key TEXT,
        expires_at TIMESTAMPTZ NOT NULL,
        opened_at TIMESTAMPTZ,
        paid_at TIMESTAMPTZ,
        closed_at TIMESTAMPTZ,
        refunded_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      -- Keyset pagination: newest first, ties broken by id.
      CREATE INDEX checkouts_merchant_page ON checkouts (merchant_id, kind, created_at DESC, id DESC);
      CREATE INDEX checkouts_merchant_external ON checkouts (merchant_id, external_id);

      CREATE TABLE checkout_items (
        id UUID PRIMARY KEY,
        checkout_id UUID NOT NULL REFERENCES checkouts(id),
        position INTEGER NOT NULL,
        -- P0 items reference a course price; session items are free-form (name + unit amount).
        price_id UUID REFERENCES course_prices(id),
        course_id UUID REFERENCES courses(id),
        name TEXT,
        quantity INTEGER NOT NULL CHECK (quantity > 0),
        unit_amount_cents BIGINT NOT NULL CHECK (unit_amount_cents > 0),
        UNIQUE (checkout_id, position)
      );

      CREATE TABLE enrolments (
        id UUID PRIMARY KEY,
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        course_id UUID NOT NULL REFERENCES courses(id),
        checkout_id UUID NOT NULL REFERENCES checkouts(id),
        status TEXT NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'REVOKED')),
        -- The student, from the Pix payer the provider reported (P0 has no customer object).
        student_name TEXT,
        student_document TEXT,
        revoked_at TIMESTAMPTZ,
        revoked_reason TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (checkout_id, course_id)
      );
      CREATE INDEX enrolments_course ON enrolments (course_id, created_at DESC);
      CREATE INDEX enrolments_merchant ON enrolments (merchant_id, created_at DESC, id DESC);

      CREATE TABLE lesson_progress (
        enrolment_id UUID NOT NULL REFERENCES enrolments(id),
        lesson_id UUID NOT NULL REFERENCES course_lessons(id),
        completed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (enrolment_id, lesson_id)
      );

      CREATE TABLE certificates (
        id UUID PRIMARY KEY,
        enrolment_id UUID NOT NULL UNIQUE REFERENCES enrolments(id),
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        course_id UUID NOT NULL REFERENCES courses(id),
        student_name TEXT,
        course_title TEXT NOT NULL,
        issued_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `);
  },
};
