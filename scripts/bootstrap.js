#!/usr/bin/env node
// Plain JS with no dependencies: runs before anything else on a fresh clone and installs the
// npm packages (from package-lock.json) when they are missing or out of date.
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const lock = path.join(root, 'package-lock.json');
const installed = path.join(root, 'node_modules', '.package-lock.json');

const stale = !fs.existsSync(installed) || fs.statSync(installed).mtimeMs < fs.statSync(lock).mtimeMs;
if (stale) {
  // `npm install`, not `npm ci`: the npm on our machines leaves other platforms' optional
  // packages out of the lock it writes and then `npm ci` refuses that lock. `npm install`
  // installs exactly the locked versions and leaves an in-sync lock untouched.
  process.stdout.write('[bootstrap] installing npm packages (npm install from package-lock.json)...\n');
  execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
