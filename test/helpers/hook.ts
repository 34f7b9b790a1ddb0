import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

export const HOOK = path.resolve(import.meta.dirname, '../../dist/hook.cjs');
export const CLI = path.resolve(import.meta.dirname, '../../dist/cli.mjs');

export interface HookRun {
  status: number | null;
  stdout: string;
  stderr: string;
  decision: 'pass' | 'deny' | 'ask' | 'other';
  reason: string;
}

/** Pipe one hook input into the built bundle, as Claude Code does. */
export function runHookBundle(input: unknown, opts: { env?: NodeJS.ProcessEnv; event?: string; raw?: boolean } = {}): HookRun {
  const stdin = opts.raw ? String(input) : JSON.stringify(input);
  const env = { ...process.env, TDD_GATE_DISABLE: '', ...opts.env };
  const r = spawnSync(process.execPath, [HOOK, ...(opts.event ? [opts.event] : [])], { input: stdin, encoding: 'utf8', env, timeout: 60_000 });
  let decision: HookRun['decision'] = 'other';
  let reason = '';
  if (r.stdout.trim() === '') decision = 'pass';
  else {
    try {
      const out = JSON.parse(r.stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
      const d = out.hookSpecificOutput?.permissionDecision;
      decision = d === 'deny' || d === 'ask' ? d : 'other';
      reason = out.hookSpecificOutput?.permissionDecisionReason ?? '';
    } catch {
      decision = 'other';
    }
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, decision, reason };
}

export function runCli(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    const stdout = execFileSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, CLAUDECODE: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    return { status: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { status: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}
