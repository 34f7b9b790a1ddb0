// stack.json's glob vocabulary, without zod: the hook needs it on every gated call (stack.ts re-exports it).

/**
 * Test-runner and test-support files frozen together with the tests unless stack.json says otherwise.
 * A module manifest (go.mod, Cargo.toml) counts only below the root, where its folder holds tests
 * (src/state/rules/runnerParts.ts: the root one's runner part is frozen, the rest stays editable).
 */
export const DEFAULT_TEST_CONFIG_GLOB = [
  'vitest.config.*',
  'vitest.workspace.*',
  'vitest.setup.*',
  'vite.config.*',
  'jest.config.*',
  'jest.setup.*',
  'playwright.config.*',
  'karma.conf.*',
  '.mocharc*',
  'pytest.ini',
  '.pytest.ini',
  'pytest.toml',
  '.pytest.toml',
  'conftest.py',
  'tox.ini',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  'bunfig.toml',
  '*/**/Cargo.toml',
  '.cargo/config.toml',
  '.cargo/config',
  'sitecustomize.py',
  'usercustomize.py',
  '*.pth',
  'go.work',
  '*/**/go.mod',
  'vendor/modules.txt',
  'rust-toolchain',
  'rust-toolchain.toml',
  'build.rs',
  'node.config.json',
  '.babelrc',
  '.babelrc.*',
  'babel.config.*',
];

export function splitGlobs(value: string | string[]): string[] {
  const list = typeof value === 'string' ? value.split('|') : value;
  return list.map((p) => p.trim()).filter((p) => p.length > 0);
}

/** Characters a backslash may escape in a glob on purpose (`pages/\[id\].tsx`). */
const ESCAPABLE = '[]{}()!+@';

/**
 * A pattern written with Windows separators (`tests\**`, `src\app\*.py`): globs take `/` on every
 * system and a backslash escapes the next character, so such a pattern silently matches nothing.
 * Returns the pattern with `/` where its backslashes stood as separators, or null when it has
 * none (a backslash before one of `[]{}()!+@` is an escape, kept).
 */
export function slashForm(pattern: string): string | null {
  let out = '';
  let found = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = pattern[i + 1];
    if (next !== undefined && ESCAPABLE.includes(next)) {
      out += ch + next;
      i++;
      continue;
    }
    found = true;
    // `src\\**` (a backslash doubled, as in a JSON string written twice over) is still one separator
    while (pattern[i + 1] === '\\') i++;
    if (out !== '' && !out.endsWith('/')) out += '/';
  }
  return found ? out : null;
}

/** One problem per glob key of stack.json holding a backslash-separated pattern, with the `/` form to write instead. */
export function backslashGlobProblems(config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const key of ['test_file_glob', 'source_file_glob', 'test_config_glob', 'runner_reach_allow']) {
    const value = config[key];
    if (typeof value !== 'string' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) continue;
    const patterns = splitGlobs(value);
    const fixed = patterns.map((p) => slashForm(p));
    const bad = patterns.filter((_, i) => fixed[i] !== null);
    if (bad.length === 0) continue;
    const suggestion = patterns.map((p, i) => fixed[i] ?? p).join('|');
    problems.push(
      `${key} uses \`\\\` as a path separator (${bad.map((p) => `\`${p}\``).join(', ')}): globs take \`/\` on every system (a backslash escapes the next character), so ${bad.length === 1 ? 'it matches' : 'they match'} no file. Write \`${suggestion}\``,
    );
  }
  return problems;
}
