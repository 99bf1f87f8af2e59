/** Ids and failure types of the SendMail workflow, shared with the activity and the API's Mailer. */
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
