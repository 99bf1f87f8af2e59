/**
 * The application API's users that integration tests start from, made over HTTP as a browser
 * would: a user registered and signed in, and a user who owns a merchant (made through
 * `POST /dashboard/merchant/ensure`). Each step's answer is checked, so a test that fails in its
 * set-up says where. Steps a file needs beyond these (a role, a Pix key, a credential, a paid
 * charge) stay in the file.
 */
import { AppClient, uniqueEmail } from './appClient';

/** The password the tests' users register with, unless told otherwise. */
export const PASSWORD = 'correct horse battery';

export interface SignedInUser {
  client: AppClient;
  email: string;
  password: string;
  userId: string;
}

export interface SignedInMerchant extends SignedInUser {
  merchantId: string;
}

export interface UserOptions {
  /** Default: a unique address starting with `emailPrefix`. */
  email?: string;
  /** Default `user` (uniqueEmail's). */
  emailPrefix?: string;
  password?: string;
}

export interface MerchantOptions extends UserOptions {
  /** The merchant's name (default `Loja Teste`). */
  name?: string;
  /** Default the CNPJ 11.222.333/0001-81. */
  document?: string;
  /** Default `PRODUCER`. */
  type?: string;
}

/** A new user, registered (201) and signed in (200) on a client of its own. */
export async function signedInUser(stack: { apiUrl: string }, opts: UserOptions = {}): Promise<SignedInUser> {
  const client = new AppClient(stack.apiUrl);
  const email = opts.email ?? uniqueEmail(opts.emailPrefix);
  const password = opts.password ?? PASSWORD;
  const registered = await client.register({ email, password });
  expect(registered.status).toBe(201);
  expect((await client.login(email, password)).status).toBe(200);
  return { client, email, password, userId: registered.body.id };
}

/** A new signed-in user who owns a new merchant, ensured through the dashboard (200). */
export async function signedInMerchant(
  stack: { apiUrl: string },
  opts: MerchantOptions = {},
): Promise<SignedInMerchant> {
  const user = await signedInUser(stack, opts);
  const merchant = await user.client.call('POST', '/dashboard/merchant/ensure', {
    body: {
      name: opts.name ?? 'Loja Teste',
      document: opts.document ?? '11.222.333/0001-81',
      type: opts.type ?? 'PRODUCER',
    },
  });
  expect(merchant.status).toBe(200);
  return { ...user, merchantId: merchant.body.id };
}
