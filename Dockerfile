# One image for api, worker and sandbox (docker-compose.yml picks the entry point).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
CMD ["npx", "tsx", "api/server.ts"]
