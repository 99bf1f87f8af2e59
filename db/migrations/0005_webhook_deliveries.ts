/**
 * Webhook deliveries (one per event × endpoint, plus resends) and every attempt of each.
 * The body is fixed when the delivery is created, so every attempt sends the same bytes and
 * the same eventId.
 */
import type { Migration } from '../migrator';

export const webhookDeliveries: Migration = {
  name: '0005_webhook_deliveries',
  async up({ context: sequelize }) {
    await sequelize.query(`
      CREATE TABLE webhook_deliveries (
        id UUID PRIMARY KEY,
        event_id UUID NOT NULL REFERENCES outbox_events(id),
        webhook_id UUID NOT NULL REFERENCES webhook_endpoints(id),
        merchant_id UUID NOT NULL REFERENCES merchants(id),
        event_type TEXT NOT NULL,
        url TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('PENDING','SUCCEEDED','FAILED','CANCELLED')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_status_code INTEGER,
        last_error TEXT,
        next_attempt_at TIMESTAMPTZ,
        resend_of UUID REFERENCES webhook_deliveries(id),
        workflow_started BOOLEAN NOT NULL DEFAULT FALSE,
        completed_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (event_id, webhook_id) WHERE resend_of IS NULL;
      CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at DESC);
      CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
      CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (created_at) WHERE NOT workflow_started;

      CREATE TABLE webhook_delivery_attempts (
        id BIGSERIAL PRIMARY KEY,
        delivery_id UUID NOT NULL REFERENCES webhook_deliveries(id),
        attempt INTEGER NOT NULL,
        url TEXT NOT NULL,
        status_code INTEGER,
        success BOOLEAN NOT NULL,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        attempted_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        UNIQUE (delivery_id, attempt)
      );
    `);
  },
};
