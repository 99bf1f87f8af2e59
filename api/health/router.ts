/**
 * Liveness (/healthz) and readiness (/ready: database and Temporal reachable). Both are public,
 * so their `buildInfo` (a spec field) carries the git SHA, build id and build time only when
 * EXPOSE_BUILD_INFO is set; otherwise those are null and `source` is `hidden`: a SHA tells an
 * attacker which known bugs the deployment has. /ready is rate limited with everything else and
 * probes at most once a second: a flood of /ready costs one database and one Temporal call per
 * second, not one per request.
 */
import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import { buildInfo, hiddenBuildInfo } from './buildInfo';

const PROBE_CACHE_MS = 1000;

interface Probe {
  database: boolean;
  temporal: boolean;
  at: number;
}

export function healthRouter(deps: { sequelize: Sequelize; temporal: Client; exposeBuildInfo?: boolean }): Router {
  const router = Router();
  const build = () => ({ buildInfo: deps.exposeBuildInfo ? buildInfo() : hiddenBuildInfo() });
  let last: Probe | undefined;
  let running: Promise<Probe> | undefined;
  const probe = async (): Promise<Probe> => {
    if (last && Date.now() - last.at < PROBE_CACHE_MS) return last;
    running ??= Promise.all([
      withTimeout(deps.sequelize.query('SELECT 1').then(() => true), 2000),
      withTimeout(deps.temporal.connection.workflowService.getSystemInfo({}).then(() => true), 2000),
    ])
      .then(([database, temporal]) => (last = { database, temporal, at: Date.now() }))
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  router.get('/healthz', (_req, res) => {
    res.json({ ok: true, timestamp: new Date().toISOString(), ...build() });
  });
  router.get('/ready', async (_req, res) => {
    const { database, temporal } = await probe();
    const ok = database && temporal;
    const body = {
      ok,
      database,
      temporal,
      // This service sends no e-mail yet: SMTP is reported, never required for readiness.
      smtp: false,
      smtpError: 'SMTP is not configured',
      timestamp: new Date().toISOString(),
      ...build(),
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
