/** The Java time-skipping test server (installed by npm test), with our search attributes registered. */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { searchAttributeRegistrations } from '../../core/temporal/searchAttributes';
import { testEnv } from './env';
import { quietTemporalRuntime } from './integrationStack';

export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietTemporalRuntime();
  const env = await startWithRetries();
  await env.connection.operatorService
    .addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: Object.fromEntries(searchAttributeRegistrations.map((r) => [r.split('=')[0], 2 /* KEYWORD */])),
    })
    .catch(() => undefined); // already registered
  return env;
}

/**
 * The SDK gives the Java server 5 s to accept connections (not an option). run.sh starts it from
 * a class-data-sharing archive (scripts/ensure-tools.sh: about 1–2 s on one loaded core, 8 s
 * without); a start that still misses the bound is tried again rather than fail the suite on
 * start-up time.
 */
async function startWithRetries(tries = 4): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: testEnv().testServerPath } },
      });
    } catch (err) {
      if (attempt >= tries || !/did not start within/.test(String((err as Error)?.message))) throw err;
    }
  }
}
