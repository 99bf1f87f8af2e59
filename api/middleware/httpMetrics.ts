/**
 * Counts every request and times it, labelled by the ROUTE TEMPLATE that answered
 * (`/v1/checkouts/:id`), never the raw path: ids in labels would make a series per resource and
 * put identifiers in the metrics. The template is taken when the router assigns `req.route`
 * (baseUrl is right at that moment; by the time an async error reaches the error handler the
 * router has restored it). No route matched (404s, requests refused by middleware before
 * routing): `unmatched`.
 */
import type { RequestHandler } from 'express';
import type { ApiMetrics } from '../metrics/registry';

export function httpMetrics(metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    let template: string | undefined;
    let route: unknown;
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => route,
      set(value: { path?: unknown } | undefined) {
        route = value;
        if (template === undefined && value && typeof value.path === 'string')
          template = joinTemplate(req.baseUrl, value.path);
      },
    });
    res.once('finish', () => {
      const labels = { method: req.method, route: template ?? 'unmatched', status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

function joinTemplate(base: string, path: string): string {
  const joined = `${base}/${path}`.replace(/\/{2,}/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}
