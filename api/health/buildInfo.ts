/** Build identity for /healthz and /ready: from config.ts's `build` (GIT_SHA, BUILD_ID, BUILT_AT) or the git checkout. */
import { execFileSync } from 'node:child_process';
import type { BuildConfig } from '../../config';
import { version } from '../../package.json';

let fromGit: ReturnType<typeof gitCheckout> | undefined;

export function buildInfo(build: BuildConfig | undefined) {
  if (build?.gitSha)
    return { gitSha: build.gitSha, buildId: build.buildId, builtAt: build.builtAt, version, source: 'env' };
  fromGit ??= gitCheckout();
  return fromGit;
}

/** What public health answers show unless EXPOSE_BUILD_INFO is set: the shape, not the build. */
export function hiddenBuildInfo() {
  return { gitSha: null, buildId: null, builtAt: null, version, source: 'hidden' as const };
}

function gitCheckout() {
  try {
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    return { gitSha: sha, buildId: null, builtAt: null, version, source: 'git' };
  } catch {
    return { gitSha: null, buildId: null, builtAt: null, version, source: 'unknown' };
  }
}
