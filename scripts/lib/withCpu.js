#!/usr/bin/env node
/**
 * Runs a command and writes the CPU seconds it used, with every descendant it waited for (its
 * workers, and theirs), to a JSON file:  node scripts/lib/withCpu.js <out.json> <command> [args…]
 * Its exit status is the command's. scripts/test.ts runs jest under it: Node reports no child's
 * resource usage, but once the child is reaped this process's cutime and cstime hold all of it.
 * Linux only (/proc/self/stat); elsewhere it writes nothing.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');

const [out, command, ...args] = process.argv.slice(2);
if (!out || !command) {
  process.stderr.write('usage: node scripts/lib/withCpu.js <out.json> <command> [args…]\n');
  process.exit(2);
}

const started = Date.now();
const child = spawn(command, args, { stdio: 'inherit' });
// Ctrl-C and the runner's stop reach the command, which decides when to end.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.once('error', (err) => {
  process.stderr.write(`${command}: ${err.message}\n`);
  process.exit(127);
});
child.once('exit', (code, signal) => {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // After the name: cutime and cstime are the 14th and 15th fields; USER_HZ is 100.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(f[13]) + Number(f[14])) / 100;
    fs.writeFileSync(out, JSON.stringify({ cpuSeconds, wallSeconds: (Date.now() - started) / 1000 }));
  } catch {
    // Not Linux: no figure.
  }
  process.exit(code ?? (signal ? 128 : 1));
});
