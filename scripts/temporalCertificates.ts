/**
 * `npm run temporal-certs`: the local PKI of the production Temporal engine
 * (scripts/lib/temporalCertificates.ts) in .data/temporal-tls/: made when missing, incomplete or
 * expiring within 30 days, else kept. `TEMPORAL_ENGINE=server npm start` does the same by itself;
 * docker-compose.yml mounts the folder into the Temporal server, its Web UI and the services, so
 * run this once before `docker compose up`. Prints the files and the `temporal` CLI's flags.
 */
import path from 'node:path';
import { ensureTemporalCertificates, TEMPORAL_TLS_DIR } from './lib/temporalCertificates';
import { projectRoot } from '../cli/lib/projectRoot';

async function main(): Promise<void> {
  const { files, created } = await ensureTemporalCertificates(TEMPORAL_TLS_DIR);
  const rel = (file: string) => path.relative(projectRoot, file);
  const lines = [
    `${created ? 'made' : 'kept (still valid)'}: the local Temporal CA, server and client certificates in ${rel(files.dir)}/`,
    `  CA                  ${rel(files.caFile)}`,
    `  server (frontend)   ${rel(files.serverCertFile)} + ${rel(files.serverKeyFile)}`,
    `  client              ${rel(files.clientCertFile)} + ${rel(files.clientKeyFile)}`,
    `temporal CLI: temporal --tls-ca-path ${rel(files.caFile)} --tls-cert-path ${rel(files.clientCertFile)} --tls-key-path ${rel(files.clientKeyFile)} …`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`temporal-certs failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
