/**
 * The workflow bundle `npm run build` writes beside the compiled code (dist/workflow-bundle.js):
 * a worker started from the build reads it instead of bundling at every start (webpack, about
 * 4 CPU-seconds, longer on a busy host: the chaos runs measured workers back in 20 s and more
 * after a kill). Used only while it is newer than every compiled file, so a dist/ rebuilt by tsc
 * alone (without the bundle step) is bundled afresh, never run with older workflow code.
 */
import fs from 'node:fs';
import path from 'node:path';

export const PREBUILT_BUNDLE_FILE = 'workflow-bundle.js';

/** The bundle's path when this process runs from a build that holds a fresh one; null otherwise. */
export function prebuiltWorkflowBundle(): string | null {
  // From the sources (tsx), __dirname is workers/ of the checkout: there is no build to read.
  return __filename.endsWith('.js') ? freshBundleIn(path.join(__dirname, '..')) : null;
}

/** `distRoot`'s bundle, if it is there and no compiled file of `distRoot` is newer. */
export function freshBundleIn(distRoot: string): string | null {
  const bundle = path.join(distRoot, PREBUILT_BUNDLE_FILE);
  if (!fs.existsSync(bundle)) return null;
  return newestCompiledFile(distRoot, bundle) <= fs.statSync(bundle).mtimeMs ? bundle : null;
}

function newestCompiledFile(dir: string, skip: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') newest = Math.max(newest, newestCompiledFile(full, skip));
    } else if (entry.name.endsWith('.js') && full !== skip) {
      newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  }
  return newest;
}
