// stack.json's glob vocabulary, without zod: the hook needs it on every gated call (stack.ts re-exports it).

/**
 * Test-runner and test-support files frozen together with the tests unless stack.json says otherwise.
 * A module manifest (go.mod, Cargo.toml) counts only below the root, where its folder holds tests
 * (src/core/runnerParts.ts: the root one's runner part is frozen, the rest stays editable).
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
