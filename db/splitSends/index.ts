/** Split shares sent from the charge owner's own account (split_sends), read and written through its store. */
export * as splitSendStore from './splitSendStore';
export type { SplitSend, NewSplitSend, SplitSendStatus } from './splitSendStore';
