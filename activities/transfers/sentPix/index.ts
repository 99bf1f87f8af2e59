/** Activities of the sentPixNotice workflow: what a PSP's notice about a Pix we sent leads to (follow.ts). */
import { sentPixDeps, type SentPixActivityDeps } from './deps';
import { followSentPix } from './follow';

export function createSentPixActivities(activityDeps: SentPixActivityDeps) {
  const deps = sentPixDeps(activityDeps);
  return {
    followSentPix: (args: Parameters<typeof followSentPix>[1]) => followSentPix(deps, args),
  };
}

export type SentPixActivities = ReturnType<typeof createSentPixActivities>;
