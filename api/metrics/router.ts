/** GET /metrics (Prometheus text) and GET /metrics/perf-db (JSON), behind metricsGuard (access.ts). */
import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import { metricsGuard, type MetricsAccess } from './access';
import { perfDbReport } from './perfDb';
import type { ApiMetrics } from './registry';

export function metricsRouter(deps: { metrics: ApiMetrics; sequelize: Sequelize; access: MetricsAccess }): Router {
  const router = Router();
  const guard = metricsGuard(deps.access);
  router.get('/metrics', guard, async (_req, res) => {
    const text = await deps.metrics.registry.metrics();
    res.setHeader('Content-Type', deps.metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(text);
  });
  router.get('/metrics/perf-db', guard, async (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(await perfDbReport(deps.sequelize));
  });
  return router;
}
