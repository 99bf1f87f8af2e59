/** Infrastructure started by scripts/test.ts (npm test) and handed to jest through the environment. */
export function testEnv() {
  const databaseUrl = process.env.DATABASE_URL;
  const temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!databaseUrl || !temporalAddress) {
    throw new Error(
      'run the suite with `npm test` (it starts PostgreSQL and Temporal and sets DATABASE_URL / TEMPORAL_ADDRESS)',
    );
  }
  return {
    databaseUrl,
    temporalAddress,
    testServerPath: process.env.TEMPORAL_TEST_SERVER_PATH as string,
    cliPath: process.env.TEMPORAL_CLI_PATH as string,
    /** The run's migrated template database (scripts/test.ts): stacks copy it instead of migrating. */
    templateDatabase: process.env.GATEWAY_TEST_TEMPLATE_DATABASE || undefined,
  };
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
