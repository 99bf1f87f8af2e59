/** Liveness (/healthz) and readiness (/ready: database and Temporal reachable). */
import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import { buildInfo } from './buildInfo';

export function healthRouter(deps: { sequelize: Sequelize; temporal: Client }): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ ok: true, timestamp: new Date().toISOString(), buildInfo: buildInfo() });
  });
  router.get('/ready', async (_req, res) => {
    const [database, temporal] = await Promise.all([
      withTimeout(deps.sequelize.query('SELECT 1').then(() => true), 2000),
      withTimeout(deps.temporal.connection.workflowService.getSystemInfo({}).then(() => true), 2000),
    ]);
    const ok = database && temporal;
    const body = {
      ok,
      database,
      temporal,
      // This service sends no e-mail yet: SMTP is reported, never required for readiness.
      smtp: false,
      smtpError: 'SMTP is not configured',
      timestamp: new Date().toISOString(),
      buildInfo: buildInfo(),
      ...(ok ? {} : { error: [!database && 'database unreachable', !temporal && 'temporal unreachable'].filter(Boolean).join('; ') }),
    };
    res.status(ok ? 200 : 503).json(body);
  });
  return router;
}

async function withTimeout(p: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
