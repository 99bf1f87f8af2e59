/**
 * /dashboard/connection: a merchant's own PSP connection (the connected account model,
 * docs/account-models.md), the application API's side of what the CLI's `connection` commands
 * do (cli/connection.ts), through the same code: the material proven usable by
 * core/connections/material.ts, sealed, inserted and presented by db/connections/registration.ts.
 * Reading is for every member; registering, rotating and revoking for the owner (they decide which
 * account the merchant's Pix is received in, and with which secrets); testing and the webhook for
 * owner and admin.
 *
 * The API process never calls a PSP: "test the connection", the webhook registration and the test
 * of a rotation's new material are short workflows (workflows/connections/) whose one activity does
 * the call in the worker, and this waits for their result a bounded time (the run's execution
 * timeout). A rotation is staged here and promoted there by the CLI's own code
 * (db/connections/rotation.ts, activities/connections/rotation.ts): the active secrets serve every
 * call until the new ones passed their test.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { checkedMaterial, type ConnectionMaterial, type MaterialChange } from '../../core/connections/material';
import { clientTlsProblems } from '../../core/net/clientTls';
import type { MasterKeyring } from '../../core/crypto/envelope';
import { connectionWebhookUrl } from '../../core/pix/callbackPath';
import { MerchantIdKey } from '../../core/temporal/searchAttributes';
import { executeWorkflow } from '../../core/temporal/workflows';
import {
  ActiveConnectionExists,
  ConnectionNotActive,
  presentConnection,
  pspConnectionStore,
  registerConnection,
  stageRotation,
  type ConnectionView,
  type PspConnectionRow,
} from '../../db/connections';
import type { MemberRole } from '../../db/identity';
import {
  pspConnectionRotateWorkflow,
  pspConnectionTestWorkflow,
  pspConnectionWebhookWorkflow,
} from '../../workflows/connections/definitions';
import { ConnectionFailureTypes, type PspConnectionTestResult } from '../../workflows/connections/types';
import { ApiError, errors } from '../errors/apiError';
import { ANY_ROLE, MANAGERS, requireRole } from '../identity/auth/roles';
import { temporalErrorToApi } from '../temporal/temporalErrors';
import { MATERIAL_FIELDS, type RegisterConnection, type RotateConnection } from './schema';

/** Who decides which account the merchant's money is received in. */
export const CONNECTION_OWNER: readonly MemberRole[] = ['owner'];

/** How long a test or a webhook registration may take before the API answers 503 (its run's execution timeout). */
export const CONNECTION_CHECK_TIMEOUT = '1 minute';

export const connectionErrors = {
  notFound: () =>
    new ApiError(
      404,
      'PSP_CONNECTION_NOT_FOUND',
      'this merchant has no PSP connection: register one with POST /dashboard/connection',
    ),
  exists: () =>
    new ApiError(
      409,
      'PSP_CONNECTION_EXISTS',
      'this merchant already has an active PSP connection: revoke it first (POST /dashboard/connection/revoke)',
    ),
  revoked: () =>
    new ApiError(
      409,
      'PSP_CONNECTION_REVOKED',
      'your PSP connection was revoked: register a new one before charging or sending money',
    ),
  /** The new material's test found problems (our words): it was dropped, the active secrets stay in use. */
  rotationRefused: (problems: string[]) =>
    new ApiError(
      422,
      'PSP_CONNECTION_TEST_FAILED',
      `rotation refused, your current secrets stay in use: the new ones failed their test: ${problems.join('; ')}`,
      { problems },
    ),
  rotationSuperseded: () =>
    new ApiError(
      409,
      'PSP_CONNECTION_ROTATION_SUPERSEDED',
      'another rotation (or a revocation) of this connection came first: yours was not applied; read the connection and send it again if it should win',
    ),
};

export interface ConnectionServiceDeps {
  sequelize: Sequelize;
  /** CREDENTIALS_ENCRYPTION_KEY's keyring: what the secrets are sealed under (the CLI's). */
  keyring: MasterKeyring;
  temporal: Client;
  taskQueue: string;
  /** PUBLIC_BASE_URL: where the PSP reaches this gateway (the webhook). */
  publicBaseUrl: string;
}

export class ConnectionService {
  constructor(private readonly deps: ConnectionServiceDeps) {}

  async show(userId: string, merchantId: string): Promise<ConnectionView> {
    await requireRole(userId, merchantId, ANY_ROLE);
    const row = await pspConnectionStore.findLatestConnection(this.deps.sequelize, merchantId);
    if (!row) throw connectionErrors.notFound();
    return presentConnection(row);
  }

  async checkOwner(userId: string, merchantId: string): Promise<void> {
    await requireRole(userId, merchantId, CONNECTION_OWNER);
  }

  /** Role and state, before any second factor is spent: owner, and no active connection yet. */
  async checkCanRegister(userId: string, merchantId: string): Promise<void> {
    await this.checkOwner(userId, merchantId);
    if (await pspConnectionStore.findActiveConnection(this.deps.sequelize, merchantId)) throw connectionErrors.exists();
  }

  /** Proves the material usable, then seals and stores it as the CLI does. No PSP call: test it next. */
  async register(body: RegisterConnection): Promise<ConnectionView> {
    const { material, problems } = checkedMaterial(materialOf(body), MATERIAL_FIELDS);
    if (!material)
      throw errors.validation('the certificate material is not usable', {
        fields: problems.map((message) => ({ field: message.split(' ')[0], message })),
      });
    try {
      const row = await registerConnection(
        this.deps.sequelize,
        this.deps.keyring,
        {
          merchantId: body.merchantId,
          pspKind: body.pspKind,
          apiBaseUrl: body.apiBaseUrl,
          tokenUrl: body.tokenUrl,
          clientId: body.clientId,
          pixKey: body.pixKey,
          accountNumber: body.accountNumber ?? null,
        },
        material,
      );
      return presentConnection(row);
    } catch (err) {
      if (err instanceof ActiveConnectionExists) throw connectionErrors.exists();
      throw err;
    }
  }

  /** Owner, and an active connection whose secrets to rotate (else 404, or 409 when only revoked ones remain). */
  async checkCanRotate(userId: string, merchantId: string): Promise<void> {
    await this.checkCanRevoke(userId, merchantId);
  }

  /**
   * The new material proven usable (as at registration), staged beside the active one, then tested
   * with the merchant's PSP in the worker and promoted only if the test passes. Answers the
   * connection with its new certificate and its test; a failed test → 422 with its problems, the
   * active secrets untouched.
   */
  async rotate(body: RotateConnection): Promise<ConnectionView> {
    const change = changeOf(body);
    const problems = clientTlsProblems(change.identity ?? null, change.ca ?? null, MATERIAL_FIELDS);
    if (problems.length)
      throw errors.validation('the certificate material is not usable', {
        fields: problems.map((message) => ({ field: message.split(' ')[0], message })),
      });
    const row = await this.active(body.merchantId);
    let ref: string;
    try {
      ({ ref } = await stageRotation(this.deps.sequelize, this.deps.keyring, row, change));
    } catch (err) {
      if (err instanceof ConnectionNotActive) throw connectionErrors.revoked();
      throw err;
    }
    const result = await executeWorkflow(this.deps.temporal, pspConnectionRotateWorkflow, {
      workflowId: `psp-connection-rotate-${crypto.randomUUID()}`,
      taskQueue: this.deps.taskQueue,
      args: [{ connectionId: row.id, pending: ref }],
      workflowExecutionTimeout: CONNECTION_CHECK_TIMEOUT,
      typedSearchAttributes: [{ key: MerchantIdKey, value: body.merchantId }],
    }).catch((err: unknown) => {
      throw this.answer(err, 'the test of the new secrets');
    });
    if (!result.rotated) throw connectionErrors.rotationRefused(result.test.problems);
    const rotated = await pspConnectionStore.findConnectionById(this.deps.sequelize, row.id);
    if (!rotated) throw connectionErrors.notFound();
    return presentConnection(rotated);
  }

  /** Owner, and an active connection to revoke (else 404, or 409 when only revoked ones remain). */
  async checkCanRevoke(userId: string, merchantId: string): Promise<void> {
    await requireRole(userId, merchantId, CONNECTION_OWNER);
    await this.active(merchantId);
  }

  async revoke(merchantId: string): Promise<ConnectionView> {
    const row = await pspConnectionStore.revokeConnection(this.deps.sequelize, merchantId);
    if (!row) throw connectionErrors.revoked();
    return presentConnection(row);
  }

  /** "Test the connection" in the worker; the result is recorded as the connection's lastTest. */
  async test(userId: string, merchantId: string): Promise<PspConnectionTestResult> {
    await requireRole(userId, merchantId, MANAGERS);
    const row = await this.active(merchantId);
    return executeWorkflow(this.deps.temporal, pspConnectionTestWorkflow, {
      workflowId: `psp-connection-test-${crypto.randomUUID()}`,
      taskQueue: this.deps.taskQueue,
      args: [{ connectionId: row.id }],
      workflowExecutionTimeout: CONNECTION_CHECK_TIMEOUT,
      typedSearchAttributes: [{ key: MerchantIdKey, value: merchantId }],
    }).catch((err: unknown) => {
      throw this.answer(err, 'the connection test');
    });
  }

  /** The connection's own notification URL registered at its PSP for its Pix key (the URL's secret shown as `…`). */
  async registerWebhook(userId: string, merchantId: string) {
    await requireRole(userId, merchantId, MANAGERS);
    const row = await this.active(merchantId);
    const { outcome } = await executeWorkflow(this.deps.temporal, pspConnectionWebhookWorkflow, {
      workflowId: `psp-connection-webhook-${crypto.randomUUID()}`,
      taskQueue: this.deps.taskQueue,
      args: [{ connectionId: row.id, publicBaseUrl: this.deps.publicBaseUrl }],
      workflowExecutionTimeout: CONNECTION_CHECK_TIMEOUT,
      typedSearchAttributes: [{ key: MerchantIdKey, value: merchantId }],
    }).catch((err: unknown) => {
      throw this.answer(err, 'the webhook registration');
    });
    return {
      connectionId: row.id,
      pixKey: row.pix_key,
      outcome,
      url: connectionWebhookUrl(this.deps.publicBaseUrl, row.id, '…'),
    };
  }

  private async active(merchantId: string): Promise<PspConnectionRow> {
    const row = await pspConnectionStore.findLatestConnection(this.deps.sequelize, merchantId);
    if (!row) throw connectionErrors.notFound();
    if (row.status !== 'ACTIVE') throw connectionErrors.revoked();
    return row;
  }

  private answer(err: unknown, what: string): unknown {
    return temporalErrorToApi(err, {
      failures: {
        [ConnectionFailureTypes.notActive]: () => connectionErrors.revoked(),
        [ConnectionFailureTypes.superseded]: () => connectionErrors.rotationSuperseded(),
        // The worker's words (no master key, another one): the operator's to fix, nothing secret.
        [ConnectionFailureTypes.unavailable]: (f) => errors.unavailable(`${what} could not run: ${f.message}`),
        [ConnectionFailureTypes.webhookRefused]: (f) =>
          new ApiError(502, 'PSP_WEBHOOK_NOT_REGISTERED', `the PSP did not register the webhook: ${f.message}`),
      },
      // Timed out (no worker took it in time) or ended otherwise: nothing was changed; try again.
      otherFailure: () => errors.unavailable(`${what} did not finish in time; retry`),
      unavailable: `the workflow service is unavailable; retry ${what}`,
    });
  }
}

/** The body's secrets as material: PEM text or PKCS#12 bytes (base64), and the CA when given. */
function materialOf(body: RegisterConnection): ConnectionMaterial {
  return {
    clientSecret: body.clientSecret,
    identity: body.pfxBase64
      ? { kind: 'pfx', pfx: Buffer.from(body.pfxBase64, 'base64'), passphrase: body.pfxPassphrase ?? '' }
      : { kind: 'pem', cert: Buffer.from(body.certPem ?? '', 'utf8'), key: Buffer.from(body.keyPem ?? '', 'utf8') },
    ca: body.caPem ? Buffer.from(body.caPem, 'utf8') : null,
  };
}

/** What a rotation's body replaces (the rest of the active material is kept): the secret, the certificate, the CA. */
function changeOf(body: RotateConnection): MaterialChange {
  const identity = body.pfxBase64
    ? { kind: 'pfx' as const, pfx: Buffer.from(body.pfxBase64, 'base64'), passphrase: body.pfxPassphrase ?? '' }
    : body.certPem && body.keyPem
      ? { kind: 'pem' as const, cert: Buffer.from(body.certPem, 'utf8'), key: Buffer.from(body.keyPem, 'utf8') }
      : undefined;
  return {
    clientSecret: body.clientSecret,
    identity,
    ca: body.caPem === undefined ? undefined : body.caPem === null ? null : Buffer.from(body.caPem, 'utf8'),
  };
}
