/**
 * Liveness (/healthz) and readiness (/ready: database and Temporal reachable; SMTP reported). Both are public,
 * so their `buildInfo` (a spec field) carries the git SHA, build id and build time only when
 * EXPOSE_BUILD_INFO is set; otherwise those are null and `source` is `hidden`: a SHA tells an
 * attacker which known bugs the deployment has. /ready is rate limited with everything else and
 * probes at most once a second: a flood of /ready costs one database and one Temporal call per
 * second, not one per request. SMTP (a login on the server of SMTP_URL) is reported but does not
 * make /ready fail: mail is queued durably and goes out when the server is back, while a 503
 * would take the whole API out of rotation for it. `smtpError` is in our words, never the URL.
 */
import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import { ping } from '../../db/diagnostics';
import type { Client } from '@temporalio/client';
import type { BuildConfig } from '../../config';
import { buildInfo, hiddenBuildInfo } from './buildInfo';
import { createSmtpTransport, describeSmtpError } from '../../core/mail/smtp';

const PROBE_CACHE_MS = 1000;

const PROBE_TIMEOUT_MS = 2000;

interface Probe {
  database: boolean;
  temporal: boolean;
  smtp: boolean;
  smtpError: string | null;
  at: number;
}

export function healthRouter(deps: {
  sequelize: Sequelize;
  temporal: Client;
  smtpUrl?: string | null;
  exposeBuildInfo?: boolean;
  /** What the build says of itself (config.build); shown only with exposeBuildInfo. */
  build?: BuildConfig;
}): Router {
  const router = Router();
  const build = () => ({ buildInfo: deps.exposeBuildInfo ? buildInfo(deps.build) : hiddenBuildInfo() });
  let last: Probe | undefined;
  let running: Promise<Probe> | undefined;
  const probe = async (): Promise<Probe> => {
    if (last && Date.now() - last.at < PROBE_CACHE_MS) return last;
    running ??= Promise.all([
      withTimeout(
        ping(deps.sequelize).then(() => true),
        PROBE_TIMEOUT_MS,
      ),
      withTimeout(
        deps.temporal.connection.workflowService.getSystemInfo({}).then(() => true),
        PROBE_TIMEOUT_MS,
      ),
      smtpProbe(),
    ])
      .then(([database, temporal, smtp]) => (last = { database, temporal, ...smtp, at: Date.now() }))
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const transport = deps.smtpUrl ? createSmtpTransport(deps.smtpUrl) : undefined;
  const smtpProbe = async (): Promise<{ smtp: boolean; smtpError: string | null }> => {
    if (!transport) return { smtp: false, smtpError: 'SMTP is not configured (SMTP_URL)' };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<{ smtp: boolean; smtpError: string }>((resolve) => {
      timer = setTimeout(
        () => resolve({ smtp: false, smtpError: 'SMTP_TIMEOUT: the SMTP server did not answer in time' }),
        PROBE_TIMEOUT_MS,
      );
    });
    const verify = transport.verify().then(
      () => ({ smtp: true, smtpError: null }),
      (err: unknown) => {
        const problem = describeSmtpError(err);
        return { smtp: false, smtpError: `${problem.code}: ${problem.message}` };
      },
    );
    try {
      return await Promise.race([verify, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  router.get('/healthz', (_req, res) => {
    res.json({ ok: true, timestamp: new Date().toISOString(), ...build() });
  });
  router.get('/ready', async (_req, res) => {
    const { database, temporal, smtp, smtpError } = await probe();
    const ok = database && temporal;
    const body = {
      ok,
      database,
      temporal,
      smtp,
      smtpError,
      timestamp: new Date().toISOString(),
      ...build(),
      ...(ok
        ? {}
        : {
            error: [!database && 'database unreachable', !temporal && 'temporal unreachable']
              .filter(Boolean)
              .join('; '),
          }),
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
