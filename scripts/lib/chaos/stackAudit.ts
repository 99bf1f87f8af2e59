/**
 * The chaos run's audit: the production build's own `gateway audit --json` against the stack (its
 * database, Temporal and provider, and the sandbox's per-reference counters), run as an operator
 * runs it, and its result as a markdown table for the report. A run of the command that could not
 * look (exit other than 0 or 1, output that is not its JSON) is never called clean.
 */
import { execFile } from 'node:child_process';
import type { AuditReport } from '../../../cli/audit';
import type { Stack } from '../stack';

export interface StackAudit {
  clean: boolean;
  /** Markdown: one row per check, then the discrepancies (with their rows) and the notes. */
  table: string;
  report?: AuditReport;
}

export async function auditStack(stack: Stack, buildDir: string, since: Date): Promise<StackAudit> {
  const args = [
    'dist/cli/gateway.js',
    'audit',
    '--json',
    '--since',
    since.toISOString(),
    '--sandbox-url',
    stack.sandboxUrl,
  ];
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      args,
      { cwd: buildDir, env: { ...process.env, ...stack.env }, maxBuffer: 64 * 1024 * 1024 },
      (err, out, errOut) =>
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout: out, stderr: errOut }),
    ),
  );
  let report: AuditReport | undefined;
  try {
    report = JSON.parse(stdout) as AuditReport;
  } catch {
    report = undefined;
  }
  if (!report || (code !== 0 && code !== 1))
    return {
      clean: false,
      table: `The audit could not run (exit ${code}):\n\n\`\`\`\n${(stderr || stdout).slice(-4_000)}\n\`\`\``,
    };
  return { clean: report.clean && code === 0, table: auditMarkdown(report), report };
}

/** At most this many discrepancies are listed in the report (the JSON in logs/ has them all). */
const LISTED = 60;

export function auditMarkdown(report: AuditReport): string {
  const rows = report.checks.map(
    (c) => `| ${c.check} | ${c.examined} | ${c.discrepancies.length} | ${c.notes.length} |`,
  );
  const found = report.checks.flatMap((c) => c.discrepancies.map((d) => `- [${c.check}] \`${d.row}\` ${d.problem}`));
  const notes = report.checks.flatMap((c) => c.notes.map((n) => `- [${c.check}] ${n}`));
  return [
    '| check | examined | discrepancies | notes |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    report.clean ? '**Audit: clean.**' : `**Audit: ${found.length} discrepancies.**`,
    ...(found.length
      ? [
          '',
          'Discrepancies:',
          '',
          ...found.slice(0, LISTED),
          ...(found.length > LISTED ? [`- … and ${found.length - LISTED} more`] : []),
        ]
      : []),
    ...(notes.length
      ? [
          '',
          'Notes:',
          '',
          ...notes.slice(0, LISTED),
          ...(notes.length > LISTED ? [`- … and ${notes.length - LISTED} more`] : []),
        ]
      : []),
  ].join('\n');
}
