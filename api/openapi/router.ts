/**
 * GET /openapi.json (generated once, then served from memory) and GET /docs, a Swagger UI page.
 * The page is self-contained: its scripts and styles come from the swagger-ui-dist package in
 * node_modules, never a CDN, so it works offline and in tests. Both routes are public.
 */
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import { buildOpenApiDocument } from './document';

const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
// Only the files the page loads: the package also ships a demo index.html pointing at a petstore.
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);
const ASSET_PREFIX = '/docs/assets';

const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Pix Gateway API</title>
  <link rel="stylesheet" href="${ASSET_PREFIX}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${ASSET_PREFIX}/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <noscript>This page needs JavaScript; the raw document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
  <div id="swagger-ui"></div>
  <script src="${ASSET_PREFIX}/swagger-ui-bundle.js"></script>
  <script src="${ASSET_PREFIX}/init.js"></script>
</body>
</html>
`;

// Swagger UI injects inline styles; everything else is same-origin.
const DOCS_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

/**
 * Static files of the page. Plain middleware rather than a route on purpose: they are not API
 * operations, so they are neither in the document nor seen by the route coverage test.
 */
const docsAssets: RequestHandler = (req, res, next) => {
  if (req.method !== 'GET' && req.method !== 'HEAD') return next();
  const name = req.path.slice(1);
  if (name === 'init.js') {
    res.type('application/javascript').setHeader('Cache-Control', 'no-cache');
    res.send(INIT_JS);
    return;
  }
  if (!ASSETS.has(name)) return next();
  res.sendFile(path.join(swaggerUiDir, name), { maxAge: '1d' }, (err) => err && next(err));
};

export function openApiRouter(): Router {
  let json: string | undefined;
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    json ??= JSON.stringify(buildOpenApiDocument());
    res.type('application/json').setHeader('Cache-Control', 'no-cache');
    res.send(json);
  });
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('html').send(PAGE);
  });
  router.use(ASSET_PREFIX, docsAssets);
  return router;
}
