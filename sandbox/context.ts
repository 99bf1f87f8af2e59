/** What route handlers share: state, the (injectable) clock, logging and callback delivery. */
import type { Logger } from 'pino';
import type { CallbackDispatcher } from './callbacks';
import type { SandboxState } from './state';

export interface SandboxContext {
  state: SandboxState;
  now: () => Date;
  logger: Logger;
  callbacks: CallbackDispatcher;
}
