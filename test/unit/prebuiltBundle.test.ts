/** The build's workflow bundle is read only while no compiled file is newer than it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshBundleIn, PREBUILT_BUNDLE_FILE } from '../../workers/prebuiltBundle';

let dist: string;
const at = (file: string, seconds: number) => {
  const full = path.join(dist, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  if (!fs.existsSync(full)) fs.writeFileSync(full, '');
  fs.utimesSync(full, seconds, seconds);
};

beforeEach(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'dist-'));
  at('workflows/index.js', 1_000);
  at('activities/index.js', 1_000);
});
afterEach(() => fs.rmSync(dist, { recursive: true, force: true }));

it('is used when written after every compiled file', () => {
  at(PREBUILT_BUNDLE_FILE, 2_000);
  expect(freshBundleIn(dist)).toBe(path.join(dist, PREBUILT_BUNDLE_FILE));
});

it('is not used when a compiled file is newer (dist rebuilt by tsc alone): the worker bundles afresh', () => {
  at(PREBUILT_BUNDLE_FILE, 2_000);
  at('workflows/charges/chargeLifecycle.js', 3_000);
  expect(freshBundleIn(dist)).toBeNull();
});

it('ignores what node_modules holds, and answers null without a bundle', () => {
  at('node_modules/x/index.js', 5_000);
  expect(freshBundleIn(dist)).toBeNull();
  at(PREBUILT_BUNDLE_FILE, 2_000);
  expect(freshBundleIn(dist)).not.toBeNull();
});
