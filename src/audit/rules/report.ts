import type { Check } from './checks.js';

/** pass: every check held (exit 0); fail: one did not (exit 1); error: the audit could not run (exit 3). */
type AuditStatus = 'pass' | 'fail' | 'error';

export const AUDIT_EXIT: Record<AuditStatus, number> = { pass: 0, fail: 1, error: 3 };

export interface CycleReport {
  record: string;
  /** The commit that added the record. */
  commit: string;
  spec_id: string | null;
  runner: string | null;
  checks: Check[];
}

export interface AuditReport {
  status: AuditStatus;
  base: string | null;
  head: string;
  cycles: CycleReport[];
  /** Checks of the head as a whole (frozen files, runner settings, the run, stubs, --require-cycles). */
  head_checks: Check[];
  /** Why the audit could not run (status error). */
  error?: string;
  /** The runner as the audit found it here. */
  runner_here?: string | null;
}

export function statusOf(cycles: readonly CycleReport[], head: readonly Check[]): AuditStatus {
  const all = [...cycles.flatMap((c) => c.checks), ...head];
  return all.every((c) => c.ok) ? 'pass' : 'fail';
}

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** For a pull request's checks page ($GITHUB_STEP_SUMMARY): the verdict, each cycle, each failure by name. */
export function markdown(r: AuditReport): string {
  const icon = r.status === 'pass' ? '✅' : r.status === 'fail' ? '❌' : '⚠️';
  const word = r.status === 'pass' ? 'passed' : r.status === 'fail' ? 'failed' : 'could not run';
  const lines = [`## ${icon} tdd-gate audit ${word}`, ''];
  lines.push(`Range: ${r.base ? `\`${r.base.slice(0, 12)}\`` : 'the whole history'} .. \`${r.head.slice(0, 12)}\` · ${r.cycles.length} cycle record${r.cycles.length === 1 ? '' : 's'}${r.runner_here ? ` · runner here: ${r.runner_here}` : ''}`, '');
  if (r.error) lines.push(`**Could not run:** ${r.error}`, '');
  if (r.cycles.length > 0) {
    lines.push('| cycle | SPEC | commit | result |', '|---|---|---|---|');
    for (const c of r.cycles) {
      const bad = c.checks.filter((k) => !k.ok);
      lines.push(`| \`${esc(c.record.slice(c.record.lastIndexOf('/') + 1))}\` | ${esc(c.spec_id ?? '?')} | \`${c.commit.slice(0, 12)}\` | ${bad.length === 0 ? '✅ replayed' : `❌ ${bad.map((k) => k.name).join(', ')}`} |`);
    }
    lines.push('');
  }
  if (r.head_checks.length > 0) {
    lines.push('| at the head | result |', '|---|---|');
    for (const k of r.head_checks) lines.push(`| ${k.name} | ${k.ok ? '✅' : '❌'} ${esc(k.detail)} |`);
    lines.push('');
  }
  const failures = [...r.cycles.flatMap((c) => c.checks.filter((k) => !k.ok).map((k) => `- **${k.name}** (\`${c.record}\`): ${k.detail}`)), ...r.head_checks.filter((k) => !k.ok).map((k) => `- **${k.name}** (head): ${k.detail}`)];
  if (failures.length > 0) lines.push('### Failures', '', ...failures, '');
  lines.push('A cycle record states claims; these results come from replaying them here: RED rebuilt from the repository and run, the frozen tests run at the head.', '');
  return lines.join('\n');
}

/** XML text: the five escapes, and the control characters XML 1.0 cannot hold dropped. */
function xml(s: string): string {
  let out = '';
  for (const ch of s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')) {
    const c = ch.charCodeAt(0);
    if (c >= 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) out += ch;
  }
  return out;
}

/** JUnit XML: one suite per cycle record and one for the head, one test case per check. */
export function junit(r: AuditReport): string {
  const suites: { name: string; checks: Check[] }[] = [...r.cycles.map((c) => ({ name: c.record, checks: c.checks })), { name: 'head', checks: r.head_checks }];
  if (r.error) suites.push({ name: 'audit', checks: [{ name: 'could-run', ok: false, detail: r.error }] });
  const total = suites.reduce((n, s) => n + s.checks.length, 0);
  const failures = suites.reduce((n, s) => n + s.checks.filter((c) => !c.ok).length, 0);
  const out = [`<?xml version="1.0" encoding="UTF-8"?>`, `<testsuites name="tdd-gate audit" tests="${total}" failures="${failures}">`];
  for (const s of suites) {
    const bad = s.checks.filter((c) => !c.ok).length;
    out.push(`  <testsuite name="${xml(s.name)}" tests="${s.checks.length}" failures="${bad}">`);
    for (const c of s.checks) {
      if (c.ok) out.push(`    <testcase classname="${xml(s.name)}" name="${xml(c.name)}"/>`);
      else out.push(`    <testcase classname="${xml(s.name)}" name="${xml(c.name)}">`, `      <failure message="${xml(c.detail)}">${xml(c.detail)}</failure>`, '    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

/** The plain-text lines the verb prints. */
export function textLines(r: AuditReport): string[] {
  const lines: string[] = [];
  for (const c of r.cycles) {
    const bad = c.checks.filter((k) => !k.ok);
    lines.push(`${bad.length === 0 ? 'ok  ' : 'FAIL'} ${c.record} (${c.spec_id ?? '?'}, ${c.commit.slice(0, 12)})`);
    for (const k of bad) lines.push(`       ${k.name}: ${k.detail}`);
  }
  for (const k of r.head_checks) lines.push(`${k.ok ? 'ok  ' : 'FAIL'} head ${k.name}: ${k.detail}`);
  if (r.error) lines.push(`could not run: ${r.error}`);
  lines.push(`tdd-gate audit: ${r.status === 'pass' ? 'PASS' : r.status === 'fail' ? 'FAIL' : 'COULD NOT RUN'} (${r.cycles.length} cycle record${r.cycles.length === 1 ? '' : 's'})`);
  return lines;
}
