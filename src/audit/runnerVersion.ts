import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { commandProgram } from '../verify/rules/toolchain.js';

/** JavaScript runners known by the package the command names (`node node_modules/vitest/vitest.mjs run`, `npx jest`). */
const JS_RUNNERS = ['vitest', 'jest', 'mocha', 'ava', 'tap', 'jasmine'];

function packageVersion(root: string, name: string): string | null {
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? `${name} ${pkg.version}` : null;
  } catch {
    return null;
  }
}

function versionOf(root: string, file: string, args: string[], env: NodeJS.ProcessEnv): string | null {
  const r = spawnSync(file, args, { cwd: root, env, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) return null;
  const line = `${r.stdout}${r.stderr}`.split('\n').find((l) => l.trim() !== '');
  return line ? line.trim().slice(0, 120) : null;
}

/**
 * The test runner and its version, as far as the command tells: the package a JavaScript runner
 * comes from, else what the program says to `--version` (node, python's pytest, go, cargo).
 * Best effort: null when it cannot be told. A claim for the reviewer; the audit prints its own.
 */
export function runnerVersion(root: string, command: string, env: NodeJS.ProcessEnv): string | null {
  const words = command.split(/\s+/);
  for (const name of JS_RUNNERS) {
    if (words.some((w) => w === name || w.includes(`node_modules/${name}/`) || w.includes(`/.bin/${name}`))) return packageVersion(root, name);
  }
  if (/\bnpm\s+(?:run\s+)?test\b|\bnpm\s+t\b/.test(command)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
      const script = pkg.scripts?.test ?? '';
      const name = JS_RUNNERS.find((n) => new RegExp(`\\b${n}\\b`).test(script));
      if (name) return packageVersion(root, name);
    } catch {
      // no package.json
    }
  }
  const program = commandProgram(command);
  if (program === null) return null;
  const base = path.basename(program);
  if (/^python\d?(?:\.\d+)?$/.test(base) && /-m\s+pytest\b/.test(command)) return versionOf(root, program, ['-m', 'pytest', '--version'], env);
  if (base === 'pytest') return versionOf(root, program, ['--version'], env);
  if (base === 'node') return `node ${versionOf(root, program, ['--version'], env) ?? 'unknown'}`;
  if (base === 'go') return versionOf(root, program, ['version'], env);
  if (base === 'cargo') return versionOf(root, program, ['--version'], env);
  return null;
}
