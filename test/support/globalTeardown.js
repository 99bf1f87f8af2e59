/**
 * Once after every test file: stops the shared integration stacks (test/support/sharedStack.ts)
 * and waits for them, so their stop (secrets recorded for the audit, connections closed) happens
 * before scripts/test.ts drops the databases and stops Temporal. Plain JavaScript, like globalSetup.
 */
const fs = require('node:fs');
const path = require('node:path');

module.exports = async function globalTeardown() {
  const dir = process.env.GATEWAY_SHARED_STACKS_DIR;
  if (!dir || !fs.existsSync(dir)) return;
  const pids = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).pid);
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const pid of pids.filter(alive)) signal(pid, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
};

function signal(pid, sig) {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
