/**
 * `npm run gateway -- provider balance`: the platform's account balance at the PSP (Efí's
 * GET /v2/gn/saldo), what withdrawals, payouts and refunds to a key are sent from. Reads the
 * configuration as the worker does (PIX_API_*, EFI_API_BASE_URL), over the same connection.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { EfiClient } from '../activities/provider/efi/efiClient';
import { connectionFrom } from '../activities/provider/pixApi/fromConfig';

export const providerBalanceHelp = `usage: npm run gateway -- provider balance

Prints the platform's account balance at the PSP (Efí: GET /v2/gn/saldo), the account every
withdrawal, payout and refund to a key is sent from. A payout the balance cannot cover waits
(PSP_BALANCE_INSUFFICIENT on its items); a withdrawal is refused with that code.
The same figure is on /metrics as gateway_psp_balance_cents.

Configuration: as for \`provider webhook register\` (PIX_API_*, EFI_API_BASE_URL).`;

export async function providerBalanceCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { help: { type: 'boolean', short: 'h', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help || positionals.length > 0) {
    process.stdout.write(`${providerBalanceHelp}\n`);
    if (!values.help) process.exitCode = 2;
    return;
  }
  const config = loadConfig(env);
  if (config.pixTransfers.api !== 'efi') {
    process.stdout.write("PIX_TRANSFERS_API is not efi: the sandbox's own API tells no balance\n");
    process.exitCode = 2;
    return;
  }
  const connection = connectionFrom(config);
  try {
    const cents = await new EfiClient(connection, config.pixTransfers.efiBaseUrl).balanceCents();
    const reais = `R$ ${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;
    process.stdout.write(`PSP account balance: ${reais} (${cents} cents)\n`);
  } finally {
    await connection.close();
  }
}
