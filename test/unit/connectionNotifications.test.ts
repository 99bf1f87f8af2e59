/**
 * A merchant connection's API Pix notification route (api/connections/notifications/router.ts)
 * on a small app of its own, with the real secret check (service.ts: envelopes opened with a real
 * keyring, a fake database holding the rows) and a fake claim path recording what it is given.
 * Unknown, malformed, revoked and wrong all answer the platform route's 404; past the brake 429;
 * the right secret hands each Pix to the claim path with the connection's merchant as its scope.
 * Whether another merchant's charge is claimed is ProviderCallbackService's to decide, on a real
 * database: test/integration/pspConnections.test.ts.
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import { connectionNotificationsRouter } from '../../api/connections/notifications/router';
import { ConnectionNotificationService } from '../../api/connections/notifications/service';
import type { WrongSecretOptions } from '../../api/charges/pixApiCallbacks/intake';
import { errorHandler, notFoundHandler } from '../../api/errors/errorHandler';
import { requestLogger } from '../../api/middleware/requestLogger';
import { traceId } from '../../api/middleware/traceId';
import { credentialsKeyring, sealEnvelope } from '../../core/crypto/envelope';
import { CONNECTION_CALLBACK_PATH } from '../../core/pix/callbackPath';
import type { ReceivedPix } from '../../core/provider';
import type { CallbackOutcome, MerchantScope } from '../../db/charges';
import type { SentPixNotice } from '../../db/transfers/sentPixNotice';

const keyring = credentialsKeyring(crypto.randomBytes(32).toString('hex'));

interface Row {
  id: string;
  merchant_id: string;
  status: 'ACTIVE' | 'REVOKED';
  webhook_path_secret_envelope: string;
}

function connectionRow(merchantId: string): { row: Row; secret: string } {
  const secret = crypto.randomBytes(24).toString('base64url');
  const row: Row = {
    id: crypto.randomUUID(),
    merchant_id: merchantId,
    status: 'ACTIVE',
    webhook_path_secret_envelope: sealEnvelope(secret, keyring).envelope,
  };
  return { row, secret };
}

/** psp_connections as findConnectionById reads it: by id, whatever its status; every read counted. */
function fakeDatabase(rows: Row[]) {
  const db = {
    reads: 0,
    query: async (_sql: string, opts: { replacements: { id: string } }) => {
      db.reads++;
      return rows.filter((r) => r.id === opts.replacements.id);
    },
  };
  return db;
}

const pix = (endToEndId: string, txid: string) => ({
  endToEndId,
  txid,
  valor: '12.34',
  chave: 'loja@example.com',
  horario: '2026-05-01T12:00:00.000Z',
});

async function bed(opts: { rows: Row[]; wrongSecrets?: WrongSecretOptions; now?: () => number }) {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const db = fakeDatabase(opts.rows);
  const received: Array<{ pix: ReceivedPix; scope?: MerchantScope }> = [];
  const sent: Array<{ notice: SentPixNotice; scope?: MerchantScope }> = [];
  const claims = {
    handleReceivedPix: async (p: ReceivedPix, scope?: MerchantScope): Promise<CallbackOutcome> => {
      received.push({ pix: p, scope });
      return 'SIGNALLED';
    },
    handleSentPix: async (notice: SentPixNotice, scope?: MerchantScope): Promise<CallbackOutcome> => {
      sent.push({ notice, scope });
      return 'SENT_PIX_FOLLOWED';
    },
    handleBoletoNotice: async (): Promise<CallbackOutcome> => 'SIGNALLED',
  };
  const connections = new ConnectionNotificationService({
    sequelize: db as unknown as Sequelize,
    keyring,
    logger,
    now: opts.now,
  });
  const app = express();
  app.use(traceId);
  app.use(requestLogger(logger));
  app.use(
    CONNECTION_CALLBACK_PATH,
    connectionNotificationsRouter({
      connections,
      claims,
      // Pix Automático's notices look subscriptions up in the same fake database (none there).
      subscriptions: { sequelize: db as unknown as Sequelize, temporal: {} as Client, logger },
      logger,
      wrongSecrets: opts.wrongSecrets,
    }),
  );
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = (id: string, secret: string, body: unknown = { pix: [pix('E'.padEnd(32, '1'), 'a'.repeat(32))] }) =>
    postAt('pix', id, secret, body);
  const postAt = async (route: 'pix' | 'rec' | 'cobr', id: string, secret: string, body: unknown) => {
    const res = await fetch(`${base}${CONNECTION_CALLBACK_PATH}/${id}/${secret}/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const close = () => new Promise((r) => server.close(r));
  return { post, postAt, close, db, received, sent, lines, raw };
}

const MERCHANT = crypto.randomUUID();

it('answers the platform route’s 404 to an unknown id, a malformed id, a revoked connection and a wrong secret', async () => {
  const active = connectionRow(MERCHANT);
  const revoked = connectionRow(crypto.randomUUID());
  revoked.row.status = 'REVOKED';
  const b = await bed({ rows: [active.row, revoked.row], wrongSecrets: { perMinute: 100 } });
  try {
    const refused = [
      await b.post(crypto.randomUUID(), active.secret), // unknown id
      await b.post('not-a-uuid', active.secret), // malformed id
      await b.post(`${active.row.id}x`, active.secret),
      await b.post(revoked.row.id, revoked.secret), // revoked
      await b.post(active.row.id, `${active.secret}x`), // wrong secret
      await b.post(active.row.id, revoked.secret), // another connection's secret
    ];
    for (const r of refused) {
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'unknown notification URL' });
    }
    expect(b.received).toEqual([]);
    // Malformed ids never reach the database; the active row is read once, then cached.
    expect(b.db.reads).toBe(3);
  } finally {
    await b.close();
  }
});

it('answers 429 RATE_LIMITED past the wrong-secret brake, logs the count once per interval without the secret, and never limits the right secret', async () => {
  const { row, secret } = connectionRow(MERCHANT);
  const b = await bed({ rows: [row], wrongSecrets: { perMinute: 3, logIntervalMs: 300 } });
  const guess = `${secret.slice(0, -1)}Z`;
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await b.post(row.id, guess)).status);
    expect(statuses).toEqual([404, 404, 404, 429, 429]);
    const limited = await b.post(row.id, guess);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect((await b.post(row.id, secret)).status).toBe(200);

    await new Promise((r) => setTimeout(r, 500));
    const tallies = b.lines.filter((l) => String(l.msg).includes('wrong secret'));
    expect(tallies).toEqual([
      expect.objectContaining({
        path: '/webhooks/pix-api/connections/:connectionId/:secret/pix',
        count: 6,
        limited: 3,
        intervalSeconds: 0.3,
      }),
    ]);
    // Neither the secret nor the guess is in any line; request lines keep the id, blank the secret.
    expect(b.raw.filter((l) => l.includes(secret) || l.includes(guess))).toEqual([]);
    const requests = b.lines.filter((l) => l.msg === 'request');
    expect(requests.length).toBe(7);
    for (const l of requests) expect(l.path).toBe(`/webhooks/pix-api/connections/${row.id}/:secret/pix`);
  } finally {
    await b.close();
  }
});

it("hands each Pix to the claim path scoped to the connection's merchant, and each send notice to handleSentPix", async () => {
  const { row, secret } = connectionRow(MERCHANT);
  const b = await bed({ rows: [row] });
  try {
    const e2e = `E${'2'.repeat(31)}`;
    const res = await b.post(row.id, secret, {
      pix: [
        pix(e2e, 'b'.repeat(32)),
        {
          tipo: 'SOLICITACAO',
          gnExtras: { idEnvio: 'c'.repeat(32), erro: { codigo: 'AM04' } },
          status: 'NAO_REALIZADO',
        },
        { tipo: 'SOLICITACAO', gnExtras: { idEnvio: 'd'.repeat(32) }, status: 'REALIZADO', devolucoes: [{ id: 'D1' }] },
        { tipo: 'SOLICITACAO', gnExtras: { idEnvio: 'e'.repeat(32) }, status: 'REALIZADO', devolucoes: [] },
      ],
    });
    expect(res).toEqual({
      status: 200,
      body: {
        received: true,
        outcomes: [
          { endToEndId: e2e, outcome: 'SIGNALLED' },
          { idEnvio: 'c'.repeat(32), outcome: 'SENT_PIX_FOLLOWED' },
          { idEnvio: 'd'.repeat(32), outcome: 'SENT_PIX_FOLLOWED' },
          { idEnvio: 'e'.repeat(32), outcome: 'SENT_PIX_FOLLOWED' },
        ],
      },
    });
    expect(b.received).toEqual([
      {
        pix: expect.objectContaining({ endToEndId: e2e, txid: 'b'.repeat(32), amountCents: 1234 }),
        scope: { merchantId: MERCHANT },
      },
    ]);
    // Each with the connection's merchant, so a notice about another merchant's send always gets its run.
    const scope = { merchantId: MERCHANT };
    expect(b.sent).toEqual([
      { notice: { idEnvio: 'c'.repeat(32), reason: 'AM04', reportsReturn: false }, scope },
      { notice: { idEnvio: 'd'.repeat(32), reason: null, reportsReturn: true }, scope },
      { notice: { idEnvio: 'e'.repeat(32), reason: null, reportsReturn: false }, scope },
    ]);
    // A body the standard does not allow is read only after the secret, and refused.
    expect((await b.post(row.id, secret, { pix: [] })).status).toBe(400);
  } finally {
    await b.close();
  }
});

it('opens a secret once per cache window; a revoked connection is refused once its cached secret expires', async () => {
  const { row, secret } = connectionRow(MERCHANT);
  let now = 1_000_000;
  const b = await bed({ rows: [row], now: () => now });
  try {
    expect((await b.post(row.id, secret)).status).toBe(200);
    expect((await b.post(row.id, secret)).status).toBe(200);
    expect(b.db.reads).toBe(1);

    row.status = 'REVOKED';
    now += 30_000; // within the 60 s window: still the cached secret
    expect((await b.post(row.id, secret)).status).toBe(200);
    now += 31_000; // past it: read again, and revoked
    expect((await b.post(row.id, secret)).status).toBe(404);
    expect(b.db.reads).toBe(2);
  } finally {
    await b.close();
  }
});

it("takes Pix Automático's /rec and /cobr beside /pix with the same secret checks, looking each id up", async () => {
  const { row, secret } = connectionRow(MERCHANT);
  const other = connectionRow(crypto.randomUUID());
  const b = await bed({ rows: [row, other.row], wrongSecrets: { perMinute: 100 } });
  try {
    const recBody = { recs: [{ idRec: 'R'.repeat(29), status: 'APROVADA' }] };
    const cobrBody = { cobsr: [{ txid: 't'.repeat(32), idRec: 'R'.repeat(29), status: 'ATIVA' }] };
    for (const [route, body] of [
      ['rec', recBody],
      ['cobr', cobrBody],
    ] as const) {
      // A wrong secret, another connection's, an unknown id: the platform route's 404.
      for (const [id, s] of [
        [row.id, `${secret}x`],
        [row.id, other.secret],
        [crypto.randomUUID(), secret],
      ])
        expect((await b.postAt(route, id, s, body)).status).toBe(404);
      // The right one: each id looked up (no subscription in this database) and answered 200.
      expect((await b.postAt(route, row.id, secret, body)).status).toBe(200);
      expect((await b.postAt(route, row.id, secret, { nothing: [] })).status).toBe(400);
    }
    expect((await b.postAt('rec', row.id, secret, recBody)).body).toEqual({
      received: true,
      ignored: 0,
      outcomes: [{ idRec: 'R'.repeat(29), outcome: 'UNKNOWN' }],
    });
    expect((await b.postAt('cobr', row.id, secret, cobrBody)).body).toEqual({
      received: true,
      ignored: 0,
      outcomes: [{ txid: 't'.repeat(32), outcome: 'UNKNOWN' }],
    });
    expect(b.received).toEqual([]);
  } finally {
    await b.close();
  }
});
