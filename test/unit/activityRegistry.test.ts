/**
 * Activities are registered by domain from one explicit list (activities/index.ts), and a name two
 * domains share is refused instead of one silently replacing the other (the object spread did
 * that). No factory does I/O when it is built, so stub dependencies are enough here.
 */
import pino from 'pino';
import { activitiesByDomain, createActivities, registerActivities, type ActivityDeps } from '../../activities';

const deps: ActivityDeps = {
  sequelize: {} as never,
  provider: {} as never,
  providerCallbackUrl: 'http://127.0.0.1/webhooks/pix-gateway',
  logger: pino({ level: 'silent' }),
};

it("registers every domain's activities, each name once", () => {
  const domains = activitiesByDomain(deps);
  const registered = registerActivities(domains);
  const total = domains.reduce((n, d) => n + Object.keys(d.activities).length, 0);
  expect(Object.keys(registered)).toHaveLength(total);
  for (const { activities } of domains) {
    for (const [name, activity] of Object.entries(activities))
      expect((registered as Record<string, unknown>)[name]).toBe(activity);
  }
  expect(Object.keys(createActivities(deps)).sort()).toEqual(Object.keys(registered).sort());
});

it('refuses a name registered by two domains, naming both', () => {
  const noop = async () => undefined;
  expect(() =>
    registerActivities([
      { domain: 'refunds', activities: { reserveRefund: noop, sendRefund: noop } },
      { domain: 'withdrawals', activities: { reserveWithdrawal: noop, sendRefund: noop } },
    ]),
  ).toThrow("activity 'sendRefund' is registered by both refunds and withdrawals");
});

it('a collision makes worker creation fail before the worker exists', async () => {
  await jest.isolateModulesAsync(async () => {
    // The mail domain's factory, as if it had grown an activity the charges domain already has.
    jest.doMock('../../activities/mail/mail', () => {
      const actual = jest.requireActual('../../activities/mail/mail');
      return {
        ...actual,
        createMailActivities: (d: never) => ({ ...actual.createMailActivities(d), settleChargePaid: async () => 'x' }),
      };
    });
    const { createGatewayWorker } = await import('../../workers/createWorker');
    await expect(
      createGatewayWorker({ connection: {} as never, namespace: 'default', taskQueue: 'q', deps }),
    ).rejects.toThrow("activity 'settleChargePaid' is registered by both charges and mail");
  });
});
