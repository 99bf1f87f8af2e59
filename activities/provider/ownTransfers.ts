/**
 * The bundled provider's own API as the send API (PIX_TRANSFERS_API=sandbox): kept only for
 * transfers a development database sent through it before the switch to Efí's routes; refused in
 * production (config.ts), since no PSP speaks it.
 */
import type { StatementTransfer, TransferApi } from '../../core/provider';
import type { HttpPixProvider } from './httpPixProvider';

export function ownTransfers(own: HttpPixProvider): TransferApi {
  return {
    transfer: (req) => own.transfer(req),
    getTransferByReference: (reference) => own.getTransferByReference(reference),
    sentBetween: async (range): Promise<StatementTransfer[]> =>
      (await own.getStatement(range)).transfers.filter((t) => t.kind === 'TRANSFER'),
  };
}
