import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_STACK, SPEC_TEXT, git, state, stateFileFor } from '../helpers/repo.js';

/** The files every Bash corpus repository holds (globs: tests/** | **\/*.test.ts are tests, src/** sources). */
export const FILES: Record<string, string> = {
  'tests/a.test.ts': "import { add } from '../src/a';\nit('adds', () => expect(add(1, 2)).toBe(3));\n",
  'tests/unit/c.test.ts': "it('c', () => {});\n",
  'src/a.ts': 'export const add = (a: number, b: number) => a + b;\n',
  'src/lib/b.ts': 'export const b = 1;\n',
  'src/stub.ts': "// STUB:TDD\nexport function f(): never { throw new Error('not implemented'); }\n",
  'specs/SPEC-001.md': SPEC_TEXT,
  'scripts/gen.sh': 'echo generated\n',
  'README.md': '# demo\n',
  'docs/notes.md': 'notes\n',
  'build/out.js': 'x\n',
  'vitest.config.ts': 'export default {};\n',
  'package.json': '{"name":"demo","scripts":{"test":"vitest run"}}\n',
};

export interface CorpusRepo {
  root: string;
  home: string;
  setPhase(phase: string, extra?: Record<string, unknown>): void;
  cleanup(): void;
}

/**
 * A repository shared by many corpus cases (created once: the hook never writes files, only events).
 * `stashes`: changes pushed as stash entries, in order (the last one is `stash@{0}`).
 */
export function corpusRepo(opts: { stashes?: Record<string, string>[] } = {}): CorpusRepo {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tdd-gate-bash-')));
  const root = path.join(base, 'proj');
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  writeFileSync(path.join(home, '.claude', 'settings.json'), '{}\n');
  mkdirSync(root);
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.email', 't@example.com');
  git(root, 'config', 'user.name', 'T');
  for (const [rel, content] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
  symlinkSync('../tests/a.test.ts', path.join(root, 'src/link.ts'));
  mkdirSync(path.join(root, '.tdd'), { recursive: true });
  writeFileSync(path.join(root, '.tdd/stack.json'), JSON.stringify(DEFAULT_STACK, null, 2));
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  git(root, 'branch', 'other');
  for (const change of opts.stashes ?? []) {
    for (const [rel, content] of Object.entries(change)) writeFileSync(path.join(root, rel), content);
    git(root, 'stash', 'push', '-q', '-u', '--', ...Object.keys(change));
  }
  const setPhase = (phase: string, extra: Record<string, unknown> = {}) => {
    writeFileSync(path.join(root, '.tdd', stateFileFor('main')), JSON.stringify(state(phase, extra), null, 2));
  };
  return { root, home, setPhase, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}
