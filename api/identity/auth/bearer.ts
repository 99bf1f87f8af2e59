/**
 * Passport strategy for signed-in people: `Authorization: Bearer <access token>`. The token must
 * verify (api/identity/auth/accessTokens.ts) and its session must still be open and its user not deleted,
 * so logout, a password change or a reused refresh token ends access at once, not 15 minutes
 * later. Missing → 401 AUTHENTICATION_REQUIRED; anything else wrong → 401 INVALID_ACCESS_TOKEN.
 * The user lands on `req.account` (req.user is the API credential of server-to-server routes).
 */
import type { Request, RequestHandler } from 'express';
import type passport from 'passport';

type Authenticator = InstanceType<typeof passport.Passport>;
import { Strategy } from 'passport-strategy';
import { User, UserSession } from '../../../db/models';
import { ApiError } from '../../errors/apiError';
import type { AccessTokens } from './accessTokens';

export interface SignedIn {
  user: User;
  sessionId: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      account?: SignedIn;
    }
  }
}

export const BEARER = 'bearer-access-token';

export const bearerErrors = {
  required: () => new ApiError(401, 'AUTHENTICATION_REQUIRED', 'Authorization: Bearer <access token> is required'),
  invalid: () => new ApiError(401, 'INVALID_ACCESS_TOKEN', 'the access token is invalid or expired; refresh it'),
};

export class BearerStrategy extends Strategy {
  name = BEARER;

  constructor(private readonly tokens: AccessTokens) {
    super();
  }

  override authenticate(req: Request): void {
    this.verify(req).then(
      (account) => this.success(account),
      (err) => this.error(err),
    );
  }

  private async verify(req: Request): Promise<SignedIn> {
    const header = req.header('authorization');
    if (!header) throw bearerErrors.required();
    const match = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/.exec(header);
    if (!match) throw bearerErrors.invalid();
    const claims = await this.tokens.verify(match[1]);
    if (!claims) throw bearerErrors.invalid();
    const [session, user] = await Promise.all([UserSession.findByPk(claims.sessionId), User.findByPk(claims.userId)]);
    if (!session || session.revokedAt || session.userId !== claims.userId || !user || user.deletedAt)
      throw bearerErrors.invalid();
    return { user, sessionId: session.id };
  }
}

/** The middleware application routes put first: the signed-in user on `req.account`, or 401. */
export function requireUser(passport: Authenticator): RequestHandler {
  return passport.authenticate(BEARER, { session: false, assignProperty: 'account' }) as RequestHandler;
}

/** The signed-in user of a route behind requireUser. */
export function signedIn(req: Request): SignedIn {
  if (!req.account) throw bearerErrors.required();
  return req.account;
}
