import { describe, expect, it } from 'vitest';
import { classify, type ClassifyContext } from '../../src/state/rules/classify.js';
import { compileGlobs } from '../../src/state/rules/globs.js';
import { compileStack } from '../../src/state/loadStack.js';
import { DEFAULT_TEST_CONFIG_GLOB, splitGlobs } from '../../src/state/schema/stack.js';

function ctx(nocase = false, testGlob = 'tests/**|**/*.test.ts', sourceGlob = 'src/**'): ClassifyContext {
  return {
    specRel: 'specs/SPEC-001.md',
    isTest: compileGlobs(splitGlobs(testGlob), nocase),
    isTestConfig: compileGlobs(DEFAULT_TEST_CONFIG_GLOB, nocase),
    isSource: compileGlobs(splitGlobs(sourceGlob), nocase),
    nocase,
    controlAbs: ['/home/u/.claude.json', '/etc/claude-code/managed-settings.json'],
    controlDirs: ['/home/u/.claude/plugins', '/opt/plugin'],
  };
}

const at = (rel: string | null, abs = `/repo/${rel ?? 'x'}`) => ({ abs, rel });

describe('classify', () => {
  it.each([
    ['tests/a.test.ts', 'test'],
    ['tests/deep/nested/helper.ts', 'test'],
    ['src/a.test.ts', 'test'], // both globs: a test
    ['src/a.ts', 'source'],
    ['src/ünïcödé/файл.ts', 'source'],
    ['specs/SPEC-001.md', 'spec'],
    ['specs/SPEC-002.md', 'other'],
    ['README.md', 'other'],
    ['.tdd/stack.json', 'control'],
    ['.tdd/state-main-abcdef.json', 'control'],
    ['.tdd', 'control'],
    ['.tdd/plans/SPEC-001.md', 'plan'],
    ['.claude/settings.json', 'control'],
    ['.claude/settings.local.json', 'control'],
    ['packages/app/.claude/settings.json', 'control'],
    ['.claude/agents/x.md', 'control'], // an agent definition runs with the model's tools (issue 11)
    ['.claude/notes.md', 'other'],
    ['vitest.config.ts', 'test'],
    ['packages/web/jest.config.js', 'test'],
    ['conftest.py', 'test'],
  ])('%s → %s', (rel, expected) => {
    expect(classify(at(rel), ctx())).toBe(expected);
  });

  it.each([
    ['/home/u/.claude/settings.json', 'control'],
    ['/home/u/.claude.json', 'control'],
    ['/home/u/.claude/plugins/cache/tdd-gate/hooks/hooks.json', 'control'],
    ['/opt/plugin/dist/hook.mjs', 'control'],
    ['/etc/claude-code/managed-settings.json', 'control'],
    ['/tmp/tests/a.test.ts', 'other'],
  ])('outside the project: %s → %s', (abs, expected) => {
    expect(classify(at(null, abs), ctx())).toBe(expected);
  });

  it('ignores case only on case-insensitive file systems', () => {
    expect(classify(at('TESTS/a.ts'), ctx(false))).toBe('other');
    expect(classify(at('TESTS/a.ts'), ctx(true))).toBe('test');
    expect(classify(at('.TDD/stack.json'), ctx(true))).toBe('control');
    expect(classify(at('Specs/spec-001.md'), ctx(true))).toBe('spec');
  });

  it('matches patterns without "/" against the base name anywhere', () => {
    const c = ctx(false, '*.spec.ts|test_*.py', 'lib/**');
    expect(classify(at('lib/deep/x.spec.ts'), c)).toBe('test');
    expect(classify(at('app/test_x.py'), c)).toBe('test');
    expect(classify(at('lib/deep/x.ts'), c)).toBe('source');
  });

  it('matches dot files and directories', () => {
    expect(classify(at('tests/.fixtures/a.json'), ctx())).toBe('test');
    expect(classify(at('src/.hidden.ts'), ctx())).toBe('source');
  });
});

describe('classify: environment folders, through the stack the hook compiles', () => {
  // One decision for the hook and the CLI: compileStack leaves environment folders out of every glob.
  const marked = new Set(['env', 'target']);
  const stack = compileStack(
    { language: 'python', test_command: 'python -m pytest', test_file_glob: 'tests/**|**/test_*.py|*.pth', source_file_glob: '**/*.py', red_confirm: 'assert' },
    false,
    (dir) => marked.has(dir),
  );
  const frozen = new Set(['tests/test_a.py', '.venv/lib/python3.12/site-packages/frozen_on_purpose.py']);
  const c = (phaseFrozen: boolean): ClassifyContext => ({ ...ctx(), isTest: stack.isTest, isTestConfig: stack.isTestConfig, isSource: stack.isSource, ...(phaseFrozen ? { isFrozenFile: (rel: string) => frozen.has(rel) } : {}) });
  it.each([
    ['.venv/lib/python3.12/site-packages/distutils-precedence.pth', 'other'],
    ['.venv/lib/python3.12/site-packages/pkg/test_helpers.py', 'other'],
    ['venv/lib/python3.12/site-packages/pkg/core.py', 'other'],
    ['env/lib/python3.12/site-packages/pkg/test_x.py', 'other'], // a virtualenv by its pyvenv.cfg
    ['src/__pycache__/test_a.cpython-312.pyc', 'other'],
    ['.tox/py312/lib/python3.12/site-packages/a.py', 'other'],
    ['target/debug/build/test_gen.py', 'other'], // cargo's target, by its CACHEDIR.TAG
    ['tests/test_a.py', 'test'],
    ['sitehooks.pth', 'test'],
    ['environment/test_x.py', 'test'], // no marker: the project's
    ['app/core.py', 'source'],
  ])('%s → %s', (rel, want) => {
    expect(classify(at(rel), c(false))).toBe(want);
  });
  it('a file the freeze recorded stays frozen wherever it lies', () => {
    expect(classify(at('.venv/lib/python3.12/site-packages/frozen_on_purpose.py'), c(true))).toBe('test');
    expect(classify(at('.venv/lib/python3.12/site-packages/other.py'), c(true))).toBe('other');
  });
});
