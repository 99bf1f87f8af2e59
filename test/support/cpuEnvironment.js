/**
 * jest's node environment, plus what each test file costs in CPU under `npm test`
 * (GATEWAY_TEST_LOG_DIR set): from the environment's set-up to its teardown (the file's imports,
 * hooks and tests, and its stacks' stop), the CPU of this jest worker and of every process under
 * it: the ones alive at either end (/proc/<pid>/stat: own and reaped children's time) and the
 * ones reaped meanwhile (this process's cutime and cstime). That counts the stacks a file starts
 * (sandbox, worker and API processes, the built services, the CLI, the Java time-skipping server,
 * schemathesis) and this worker's shared stack while the file uses it. Not counted: the run's
 * PostgreSQL and Temporal dev server, shared by every file (scripts/test.ts reports the run's whole
 * CPU), and a child that outlives its parent (the kernel hands it to init).
 * One JSON file per test file in <log dir>/test-cpu/; scripts/lib/testTimings.ts sums them.
 * Linux only (/proc); elsewhere, or outside `npm test`, it is jest's node environment unchanged.
 * Plain JavaScript: jest loads the environment outside the projects' TypeScript transform.
 */
const fs = require('node:fs');
const path = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

/** /proc/<pid>/stat's unit: USER_HZ, 100 on Linux's usual architectures. */
const TICK_SECONDS = 0.01;

/** Fields after the command name (which may hold spaces and parentheses), or undefined when gone. */
function statFields(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** From the fields after the name: ppid is [1]; utime, stime, cutime, cstime are [11]–[14]. */
const ticks = (f, from, to) => f.slice(from, to + 1).reduce((sum, v) => sum + Number(v), 0);

/** CPU seconds of this process's tree so far: itself, its reaped children, its live descendants. */
function treeCpuSeconds() {
  const self = statFields(process.pid);
  if (!self) return undefined;
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(Number(name));
    if (!f) continue;
    const ppid = Number(f[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push({ pid: Number(name), f });
  }
  let total = ticks(self, 11, 14);
  const queue = [process.pid];
  while (queue.length) {
    for (const child of children.get(queue.pop()) ?? []) {
      total += ticks(child.f, 11, 14);
      queue.push(child.pid);
    }
  }
  return total * TICK_SECONDS;
}

class CpuAccountingEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.logDir = process.env.GATEWAY_TEST_LOG_DIR;
    this.enabled = Boolean(this.logDir) && process.platform === 'linux';
  }

  async setup() {
    if (this.enabled) {
      this.startedAt = Date.now();
      this.startCpu = treeCpuSeconds();
      this.startOwn = process.cpuUsage();
    }
    await super.setup();
  }

  async teardown() {
    await super.teardown();
    if (!this.enabled || this.startCpu === undefined) return;
    const end = treeCpuSeconds();
    if (end === undefined) return;
    const own = process.cpuUsage(this.startOwn);
    const total = Math.max(0, end - this.startCpu);
    const ownSeconds = (own.user + own.system) / 1e6;
    const dir = path.join(this.logDir, 'test-cpu');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, `${process.pid}-${this.startedAt}-${Math.random().toString(36).slice(2)}.json`),
      JSON.stringify({
        file: this.testPath,
        wallSeconds: (Date.now() - this.startedAt) / 1000,
        cpuSeconds: Math.round(total * 100) / 100,
        // The jest worker's own share (the in-process stacks live here); the rest is its processes'.
        workerCpuSeconds: Math.round(Math.min(ownSeconds, total) * 100) / 100,
      }),
    );
  }
}

module.exports = CpuAccountingEnvironment;
