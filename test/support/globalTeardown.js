/**
 * Once after every test file: stops the shared integration stacks (test/support/sharedStack.ts)
 * and waits for them, so their stop (secrets recorded for the audit, connections closed) happens
 * before scripts/test.ts drops the databases and stops Temporal. Plain JavaScript, like globalSetup.
 * Their CPU so far goes to the run's report first: the jest workers that started them have exited,
 * so no process that jest waits for will reap them and count it (scripts/lib/testTimings.ts).
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
  recordCpu(pids);
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

/** The shared stacks' CPU seconds (their own and their reaped children's) into <log dir>/shared-stacks-cpu.json. */
function recordCpu(pids) {
  const logDir = process.env.GATEWAY_TEST_LOG_DIR;
  if (!logDir || process.platform !== 'linux') return;
  let cpuSeconds = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, cutime, cstime, in USER_HZ (100) ticks.
      cpuSeconds += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
    } catch {
      /* already gone */
    }
  }
  fs.writeFileSync(path.join(logDir, 'shared-stacks-cpu.json'), JSON.stringify({ stacks: pids.length, cpuSeconds }));
}
