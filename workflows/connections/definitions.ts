/** The connection workflows' types, named once: started by the application API (api/connections/). */
import { defineWorkflow } from '../defineWorkflow';
import type { pspConnectionTest, pspConnectionWebhook } from './connectionChecks';

/** "Test the connection": a token, the webhook and the balance read with the merchant's own connection. */
export const pspConnectionTestWorkflow = defineWorkflow<typeof pspConnectionTest>('pspConnectionTest');
/** The connection's own notification URL registered at the merchant's PSP for its Pix key. */
export const pspConnectionWebhookWorkflow = defineWorkflow<typeof pspConnectionWebhook>('pspConnectionWebhook');
