/** GET /v2/gn/saldo: the token's account's {"saldo": "1234.56"}, with `bloqueios` (all zero here: no MED or court holds) when asked. */
import { Router } from 'express';
import type { SandboxContext } from '../context';
import { centsToValor } from '../pixApi/valor';
import { requestAccount } from '../accounts';
import { accountBalanceCents } from '../balances';
import { EfiError } from './errors';

/** A balance may go below zero through a /v1 transfer or a devolução after POST /sandbox/efi/saldo. */
export function signedValor(cents: number): string {
  return cents < 0 ? `-${centsToValor(-cents)}` : centsToValor(cents);
}

export function balanceRoutes(ctx: SandboxContext): Router {
  const router = Router();
  router.get('/saldo', (req, res) => {
    const { bloqueios } = req.query;
    if (bloqueios !== undefined && bloqueios !== 'true' && bloqueios !== 'false')
      throw new EfiError(400, 'valor_invalido', 'O parâmetro bloqueios deve ser true ou false.');
    res.json({
      saldo: signedValor(accountBalanceCents(ctx, requestAccount(res))),
      ...(bloqueios === 'true' ? { bloqueios: { judicial: '0.00', med: '0.00', total: '0.00' } } : {}),
    });
  });
  return router;
}
