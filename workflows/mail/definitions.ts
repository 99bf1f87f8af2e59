/** The SendMail workflow, its ids and failure types, shared with the activity and the API's Mailer. */
import { defineWorkflow } from '../defineWorkflow';
import type { sendMail } from './sendMail';

export const sendMailWorkflow = defineWorkflow<typeof sendMail>('sendMail');
export const mailWorkflowId = (mailId: string) => `mail-${mailId}`;

export const MailFailureTypes = {
  /** The row does not exist (its transaction rolled back): nothing to send. */
  notFound: 'MailNotFound',
  /** The SMTP server refused the message for good (5xx). */
  rejected: 'MailRejected',
  /** The stored body is gone or cannot be decrypted with the worker's key. */
  unusable: 'MailUnusable',
} as const;

export type MailOutcome = 'SENT' | 'FAILED';
