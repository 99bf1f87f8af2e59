/** The mail domain's table (outgoing_mails), through one store. Models are exported as types only. */
export * as outgoingMailStore from './outgoingMailStore';
export { MailNotStartedError, queueAndStartMail } from './mailWorkflows';
export type { OutgoingMail } from './outgoingMail';
