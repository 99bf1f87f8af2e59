import type { Sequelize } from 'sequelize';
import { DEFAULT_PLATFORM_INSTITUTION_NAME } from '../../config';
import { platformOnly, type BoletoProvider, type PixProvider, type PspAccounts } from '../../core/provider';
import { CheckoutEffects, checkoutBaseUrl } from '../checkouts/checkoutEffects';
import type { ChargeActivityDeps } from './index';

/** What the charge activities (Pix and boleto) run with, built once from the worker's dependencies. */
export interface ChargeDeps {
  sequelize: Sequelize;
  /** The platform's account's provider (boletos, and what names no merchant). */
  provider: PixProvider;
  /** The account each merchant's Pix charges are issued at, and each charge is asked of afterwards. */
  accounts: PspAccounts;
  /** Absent when the provider client cannot do boletos: issuing one then fails with a clear reason. */
  boletos: BoletoProvider | undefined;
  /** Our callback URL the provider will POST payment confirmations to. */
  providerCallbackUrl: string;
  /** config.platformInstitutionName, as charge events show it. */
  platformInstitution: string;
  checkouts: CheckoutEffects;
}

export function chargeDeps(deps: ChargeActivityDeps): ChargeDeps {
  return {
    sequelize: deps.sequelize,
    provider: deps.provider,
    accounts: deps.accounts ?? platformOnly(deps.provider),
    boletos: deps.boletoProvider ?? (isBoletoProvider(deps.provider) ? deps.provider : undefined),
    providerCallbackUrl: deps.providerCallbackUrl,
    platformInstitution: deps.platformInstitution ?? DEFAULT_PLATFORM_INSTITUTION_NAME,
    checkouts: new CheckoutEffects(deps.sequelize, checkoutBaseUrl(deps)),
  };
}

function isBoletoProvider(p: PixProvider): p is PixProvider & BoletoProvider {
  const candidate = p as Partial<BoletoProvider>;
  return (
    typeof candidate.issueBoleto === 'function' &&
    typeof candidate.getBoleto === 'function' &&
    typeof candidate.cancelBoleto === 'function'
  );
}
