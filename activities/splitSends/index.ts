/**
 * Split shares sent from the charge owner's own account after settlement (issue 37, item 3): a
 * connected merchant's split recipient whose account is at another PSP. The send and its settle
 * (send.ts), and its start (start.ts: by the settlement, and by the janitor for a run gone).
 */
import { sendSplitShare, resolveSplitShare } from './send';
import { splitSendDeps, type SplitSendActivityDeps } from './deps';

export function createSplitSendActivities(activityDeps: SplitSendActivityDeps) {
  const deps = splitSendDeps(activityDeps);
  return {
    sendSplitShare: (args: Parameters<typeof sendSplitShare>[1]) => sendSplitShare(deps, args),
    resolveSplitShare: (args: Parameters<typeof resolveSplitShare>[1]) => resolveSplitShare(deps, args),
  };
}

export type SplitSendActivities = ReturnType<typeof createSplitSendActivities>;
