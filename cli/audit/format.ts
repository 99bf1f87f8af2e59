/** The audit as an operator reads it: one line per check, then each discrepancy's row, then the notes. */
import type { AuditReport } from './index';

export function formatAudit(report: AuditReport): string {
  const header = ['check', 'examined', 'discrepancies'];
  const lines = report.checks.map((c) => [c.check, String(c.examined), String(c.discrepancies.length)]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const row = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  const out = [row(header), ...lines.map(row)];
  const found = report.checks.flatMap((c) => c.discrepancies.map((d) => `  [${c.check}] ${d.row}  ${d.problem}`));
  if (found.length) out.push('', 'discrepancies:', ...found);
  const notes = report.checks.flatMap((c) => c.notes.map((n) => `  [${c.check}] ${n}`));
  if (notes.length) out.push('', 'notes:', ...notes);
  out.push('', report.clean ? 'audit: clean' : `audit: ${found.length} discrepancies`);
  return `${out.join('\n')}\n`;
}
