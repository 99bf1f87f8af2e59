/** The Java time-skipping test server (installed by npm test), with our search attributes registered. */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { searchAttributeRegistrations } from '../../workflows/searchAttributes';
import { testEnv } from './env';
import { quietTemporalRuntime } from './integrationStack';

export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietTemporalRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testEnv().testServerPath } },
  });
  await env.connection.operatorService
    .addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: Object.fromEntries(searchAttributeRegistrations.map((r) => [r.split('=')[0], 2 /* KEYWORD */])),
    })
    .catch(() => undefined); // already registered
  return env;
}
