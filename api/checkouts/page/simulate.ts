/**
 * The "Simular pagamento" button of development and tests: pays the checkout's charge at the
 * sandbox provider through its control route (as `npm run gateway -- sandbox pay` does). The
 * payment then arrives as in production: the provider's callback, the charge lifecycle, the page's
 * live status. Never in production: there the route answers 404 and the button is not drawn.
 */
import type { Environment } from '../../../config';
import { pspChargeRef } from '../../../core/pix/apiPixIds';

export interface PaymentSimulator {
  /** The sandbox provider's base URL (config.provider.baseUrl). */
  sandboxBaseUrl: string;
  /** SANDBOX_CONTROL_TOKEN, when the sandbox's control routes want one (never logged). */
  controlToken?: string;
}

/** The simulator for this environment: none in production, whatever else is configured. */
export function paymentSimulatorFor(
  env: Environment,
  sandboxBaseUrl: string,
  controlToken?: string,
): PaymentSimulator | null {
  if (env === 'production') return null;
  return { sandboxBaseUrl, controlToken: controlToken || undefined };
}

/** Pays the charge at the sandbox: the cob of its txid (the control route accepts a txid). */
export async function simulatePayment(
  sim: PaymentSimulator,
  chargeId: string,
): Promise<{ ok: boolean; status: number }> {
  const res = await fetch(
    `${sim.sandboxBaseUrl.replace(/\/+$/, '')}/sandbox/charges/${encodeURIComponent(pspChargeRef(chargeId))}/pay`,
    {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(sim.controlToken ? { authorization: `Bearer ${sim.controlToken}` } : {}),
      },
      body: '{}',
      signal: AbortSignal.timeout(5_000),
    },
  );
  await res.arrayBuffer();
  return { ok: res.ok, status: res.status };
}
