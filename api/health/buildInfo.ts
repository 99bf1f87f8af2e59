/** Build identity for /healthz and /ready: from the environment (CI/deploy) or the git checkout. */
import { execFileSync } from 'node:child_process';
import { version } from '../../package.json';

let cached: ReturnType<typeof compute> | undefined;

export function buildInfo() {
  cached ??= compute();
  return cached;
}

/** What public health answers show unless EXPOSE_BUILD_INFO is set: the shape, not the build. */
export function hiddenBuildInfo() {
  return { gitSha: null, buildId: null, builtAt: null, version, source: 'hidden' as const };
}

function compute() {
  if (process.env.GIT_SHA) {
    return {
      gitSha: process.env.GIT_SHA,
      buildId: process.env.BUILD_ID ?? null,
      builtAt: process.env.BUILT_AT ?? null,
      version,
      source: 'env',
    };
  }
  try {
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    return { gitSha: sha, buildId: null, builtAt: null, version, source: 'git' };
  } catch {
    return { gitSha: null, buildId: null, builtAt: null, version, source: 'unknown' };
  }
}
