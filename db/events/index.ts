/**
 * The events domain's tables (merchant webhooks): webhook_endpoints, webhook_deliveries with
 * their attempts, and outbox_events, each written by one store here. Models are exported as types
 * only.
 */
export * as webhookEndpointStore from './webhookEndpointStore';
export * as deliveryStore from './deliveryStore';
export * as outboxStore from './outboxStore';
export { startDeliveryWorkflow } from './deliveryWorkflows';
export type { WebhookEndpoint } from './webhookEndpoint';
export * as replayStore from './replayStore';
