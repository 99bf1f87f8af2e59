/**
 * Password hashing: production's argon2id parameters are OWASP's; the test suite's cheap hashing
 * is another parameter set of the same algorithm, and each verifies the other's hashes (a hash
 * records its own parameters).
 */
import { hashPassword, verifyOrBurn } from '../../core/identity/passwords';

describe('password hashing', () => {
  it('hashes with argon2id at 64 MiB, 3 passes, 4 lanes by default', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
    expect(await verifyOrBurn(hash, 'correct horse battery')).toBe(true);
    expect(await verifyOrBurn(hash, 'wrong horse battery')).toBe(false);
  });

  it("hashes with argon2id at 1 MiB, 1 pass, 1 lane under the test hashing, and either verifies the other's hashes", async () => {
    const cheap = await hashPassword('correct horse battery', 'test');
    expect(cheap).toMatch(/^\$argon2id\$v=19\$m=1024,p=1,t=1\$/);
    expect(await verifyOrBurn(cheap, 'correct horse battery')).toBe(true);
    const owasp = await hashPassword('correct horse battery');
    expect(await verifyOrBurn(owasp, 'correct horse battery', 'test')).toBe(true);
  });

  it('answers false for an account without a hash, after the same work as a real check', async () => {
    expect(await verifyOrBurn(null, 'dummy password that matches nothing')).toBe(false);
    expect(await verifyOrBurn(undefined, 'anything at all', 'test')).toBe(false);
    expect(await verifyOrBurn('not a hash', 'anything at all')).toBe(false);
  });
});
