// Installed the way a user installs it: `claude plugin marketplace add <folder>` and
// `claude plugin install tdd-gate@tdd-gate` into a throwaway HOME, offline, then a session without
// --plugin-dir in which the gate answers. (Every other scenario loads the plugin with --plugin-dir.)
// The marketplace entry points at the generated plugin/ folder: the client copies only that, and
// finds no package.json there, so it runs no package manager.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { claudeCommand } from '../../scripts/demo/claude.mjs';
import { MAX_PLUGIN_BYTES } from '../../scripts/plugin-folder.mjs';
import { state, testRepo } from '../helpers/repo.js';
import { SKILL_SHELL_EVENT_SINCE, clientAtLeast, denied, describeE2E, E2E_TIMEOUT, hooksOf, PLUGIN_ROOT, resultOf, session, throwawayHome } from './harness.js';

const FROZEN_TEST = "it('adds', () => expect(1 + 2).toBe(3));\n";

/**
 * What a clone of the repository holds: every file git tracks or would track (so work not yet
 * committed is included, as --plugin-dir sees it) plus the built dist/, without node_modules.
 */
function checkout(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-e2e-checkout-')));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: PLUGIN_ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const rel of [...files, 'dist/hook.mjs', 'dist/cli.mjs']) {
    const from = path.join(PLUGIN_ROOT, rel);
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    try {
      cpSync(from, path.join(dir, rel));
    } catch {
      // a file deleted in the working tree since git listed it
    }
  }
  return dir;
}

/** Every file under `dir`, relative, sorted. */
function filesUnder(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(dir, path.join(rel, e.name)) : [path.join(rel, e.name)]))
    .sort();
}

describeE2E('install', (bin) => {
  let source = '';
  /** The client's debug log of `plugin install`. */
  let installLog = '';
  let installMs = 0;
  beforeAll(() => {
    source = checkout();
    return () => rmSync(source, { recursive: true, force: true });
  });

  it('validates as a plugin and as a marketplace', async () => {
    const home = throwawayHome();
    const r = await claudeCommand({ bin, home, args: ['plugin', 'validate', source] });
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }, E2E_TIMEOUT);

  it('marketplace add + plugin install, then the installed hook denies a frozen test write', async () => {
    const home = throwawayHome();
    const debugFile = path.join(home, 'install-debug.log');
    const add = await claudeCommand({ bin, home, args: ['plugin', 'marketplace', 'add', source] });
    expect(add.code, add.stdout + add.stderr).toBe(0);
    const install = await claudeCommand({ bin, home, args: ['--debug-file', debugFile, 'plugin', 'install', 'tdd-gate@tdd-gate'] });
    installMs = install.ms;
    expect(install.code, install.stdout + install.stderr).toBe(0);
    installLog = readFileSync(debugFile, 'utf8');
    expect(installLog).toContain('tdd-gate');
    expect(install.stdout).toContain('Successfully installed plugin: tdd-gate@tdd-gate');
    const list = await claudeCommand({ bin, home, args: ['plugin', 'list'] });
    if (clientAtLeast(bin, SKILL_SHELL_EVENT_SINCE)) {
      expect(list.stdout).toMatch(/tdd-gate@tdd-gate[\s\S]*enabled/u);
    } else {
      // An older client rejects hooks/skill-shell.json, which names PreSkillShellCommand, and lists
      // that as the plugin's status (ADR 008); no other key fails, and the session below shows
      // hooks/hooks.json loaded and gating.
      expect(list.stdout).toMatch(/tdd-gate@tdd-gate[\s\S]*failed to load[\s\S]*Hook load failed/u);
      expect([...list.stdout.matchAll(/"path": \[\s*"hooks",\s*"([A-Za-z]+)"\s*\]/gu)].map((m) => m[1])).toEqual(['PreSkillShellCommand']);
    }

    // What the client copied: plugin/ and nothing else (no sources, tests, package.json, lockfile).
    const installed = JSON.parse(readFileSync(path.join(home, '.claude', 'plugins', 'installed_plugins.json'), 'utf8')) as {
      plugins: Record<string, Array<{ installPath: string }>>;
    };
    const installPath = installed.plugins['tdd-gate@tdd-gate']?.[0]?.installPath ?? '';
    expect(installPath).not.toBe('');
    expect(filesUnder(installPath)).toEqual(filesUnder(path.join(source, 'plugin')));
    const bytes = filesUnder(installPath).reduce((n, f) => n + statSync(path.join(installPath, f)).size, 0);
    expect(bytes).toBeLessThanOrEqual(MAX_PLUGIN_BYTES);

    const repo = testRepo({ files: { 'tests/add.test.ts': FROZEN_TEST } });
    repo.setState(state('tdd-green', { mode: 'light-inline' }));
    const test = repo.path('tests/add.test.ts');
    const r = await session(bin, repo, {
      home,
      pluginDir: false,
      script: {
        main: [
          { tools: [{ name: 'Read', input: { file_path: test } }] },
          { tools: [{ name: 'Write', input: { file_path: test, content: '' } }] },
          { tools: [{ name: 'Write', input: { file_path: repo.path('src/add.ts'), content: 'export {};\n' } }] },
          { text: 'Done.' },
        ],
      },
    });
    expect(denied(resultOf(r, 1))).toMatch(/^tdd-gate rule \[tests-frozen\]: Blocked write to test file /u);
    expect(resultOf(r, 2).is_error).toBe(false);
    expect(readFileSync(test, 'utf8')).toBe(FROZEN_TEST);
    // The Read fires the gate too (held-out tests, docs/heldout.md), and passes.
    expect(hooksOf(r, 'PreToolUse')).toHaveLength(3);
    // The hooks came from plugin/: the installed copy, or (a directory marketplace runs its
    // plugins in place) the marketplace's plugin/ folder; never a repository root.
    const read = /Read hooks\.json for plugin tdd-gate \(enabled=true\): (.*)$/mu.exec(r.debugLog)?.[1];
    expect([path.join(installPath, 'hooks', 'hooks.json'), path.join(source, 'plugin', 'hooks', 'hooks.json')]).toContain(read);
  }, E2E_TIMEOUT);

  // DESIGN §1: a marketplace install runs no npm install. A client runs one (`npm ci
  // --ignore-scripts`, up to 60 s, offline too) when the plugin folder holds package.json and a
  // lockfile, as the repository root does; plugin/ holds neither.
  it('installing runs no package manager in the plugin folder', () => {
    expect(installLog).toContain('tdd-gate');
    expect(installLog).not.toContain('Installing plugin dependencies');
    console.log(`[e2e] install: plugin install took ${installMs} ms`);
  });
});
