import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ABSENT_PART, PART_FILES, partText } from '../../src/core/runnerParts.js';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { DEFAULT_STACK, state, testRepo, type TestRepo } from '../helpers/repo.js';

const IMPL = { agent_type: 'tdd-gate:implementer' };
const STACK = { ...DEFAULT_STACK, test_command: 'npm test' };
const PKG = JSON.stringify({ name: 'x', type: 'module', scripts: { test: 'vitest run', lint: 'eslint .' }, devDependencies: { vitest: '^4' } }, null, 2) + '\n';
const PYPROJECT = '[project]\nname = "x"\nversion = "1.0"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n';
const SETUP_CFG = '[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n';

/** A repo in `phase` whose freeze recorded the runner parts of these files, as `tdd-gate freeze` does. */
function frozenRepo(phase = 'tdd-green'): TestRepo {
  const files: Record<string, string> = { 'package.json': PKG, 'pyproject.toml': PYPROJECT, 'setup.cfg': SETUP_CFG, 'src/a.ts': 'export {};\n' };
  const repo = testRepo({ stack: STACK, files });
  const parts: Record<string, string> = {};
  for (const [file, part] of Object.entries(PART_FILES)) {
    parts[part] = createHash('sha256').update(partText(file, files[file] ?? null, STACK.test_command) ?? ABSENT_PART).digest('hex');
  }
  repo.setState(state(phase, { frozen: { files: {}, parts } }));
  return repo;
}

function expectDeny(r: ReturnType<typeof runHookBundle>, rule: string, reason?: RegExp) {
  expect(r.status).toBe(0);
  expect(r.decision).toBe('deny');
  expect(r.reason).toContain(`[${rule}]`);
  if (reason) expect(r.reason).toMatch(reason);
}

function expectPass(r: ReturnType<typeof runHookBundle>) {
  expect(r.stderr).toBe('');
  expect(r).toMatchObject({ status: 0, decision: 'pass', stdout: '' });
}

describe('wall 1 knows the runner settings frozen inside editable files (GREEN/REFACTOR)', () => {
  const edit = (cwd: string, file: string, from: string, to: string) => ev.edit({ cwd, ...IMPL }, file, from, to);
  it.each([
    ['the test script', 'package.json', '"test": "vitest run"', '"test": "vitest run --passWithNoTests"', /the test script in package\.json is frozen with the tests \(scripts\.test\).*Other edits of package\.json \(a dependency, another script\) are allowed/],
    ['a new pretest script', 'package.json', '"lint": "eslint ."', '"lint": "eslint .",\n    "pretest": "exit 0"', /the pretest script in package\.json is frozen with the tests \(scripts\.pretest\)/],
    ['the module type', 'package.json', '"type": "module"', '"type": "commonjs"', /"type" in package\.json is frozen/],
    ['the pytest section of pyproject.toml', 'pyproject.toml', 'addopts = "-q"', 'addopts = "-q -k not_slow"', /\[tool\.pytest…\] in pyproject\.toml is frozen/],
    ['the pytest section of setup.cfg', 'setup.cfg', 'addopts = -q', 'addopts = -q --deselect tests/test_a.py::test_x', /\[tool:pytest\] in setup\.cfg is frozen/],
  ])('denies an Edit of %s', (_what, file, from, to, reason) => {
    const repo = frozenRepo();
    expectDeny(runHookBundle(edit(repo.root, file, from, to)), 'runner-settings-frozen', reason);
  });

  it.each([
    ['a dependency', 'package.json', '"vitest": "^4"', '"vitest": "^4",\n    "lodash": "^4"'],
    ['an unrelated script', 'package.json', '"lint": "eslint ."', '"lint": "eslint .",\n    "format": "prettier -w ."'],
    ['the lint script (not run by the test command)', 'package.json', '"lint": "eslint ."', '"lint": "eslint src"'],
    ['the project version in pyproject.toml', 'pyproject.toml', 'version = "1.0"', 'version = "1.1"'],
    ['the metadata in setup.cfg', 'setup.cfg', 'name = x', 'name = y'],
  ])('allows an Edit of %s', (_what, file, from, to) => {
    const repo = frozenRepo();
    expectPass(runHookBundle(edit(repo.root, file, from, to)));
  });

  it('denies a Write that drops the test script, and a MultiEdit in REFACTOR', () => {
    const repo = frozenRepo('tdd-refactor');
    expectDeny(runHookBundle(ev.write({ cwd: repo.root, agent_type: 'tdd-gate:refactorer' }, 'package.json', '{"name":"x","type":"module"}\n')), 'runner-settings-frozen', /scripts\.test/);
    expectDeny(
      runHookBundle(ev.multiEdit({ cwd: repo.root, agent_type: 'tdd-gate:refactorer' }, 'package.json', [{ old_string: '"vitest run"', new_string: '"vitest run -t adds"' }])),
      'runner-settings-frozen',
    );
  });

  it('allows putting the frozen settings back after they drifted', () => {
    const repo = frozenRepo();
    repo.write('package.json', PKG.replace('"vitest run"', '"true"'));
    expectPass(runHookBundle(edit(repo.root, 'package.json', '"test": "true"', '"test": "vitest run"')));
  });

  it('leaves package.json alone before the freeze (RED)', () => {
    const repo = frozenRepo('tdd-red');
    expectPass(runHookBundle(ev.edit({ cwd: repo.root, agent_type: 'tdd-gate:test-writer' }, 'package.json', '"test": "vitest run"', '"test": "vitest run --reporter=dot"')));
  });

  it('a package.json below the root holds no frozen part', () => {
    const repo = frozenRepo();
    repo.write('packages/a/package.json', PKG);
    expectPass(runHookBundle(edit(repo.root, 'packages/a/package.json', '"test": "vitest run"', '"test": "true"')));
  });
});

describe('Bash writes to a file holding frozen runner settings (GREEN)', () => {
  const bash = (cwd: string, command: string) => runHookBundle(ev.bash({ cwd, ...IMPL }, command));
  it.each([
    ['a redirect', `echo '{"name":"x"}' > package.json`, /the test script, "type" in package\.json are frozen with the tests \(scripts\.test, type\)/],
    ['sed -i', `sed -i 's/vitest run/true/' package.json`, /cannot tell what this command leaves in them.*Use the Edit tool for package\.json/],
    ['npm pkg set of the test script', 'npm pkg set scripts.test="vitest run -t adds"', /the test script in package\.json is frozen/],
    ['npm pkg delete of the module type', 'npm pkg delete type', /"type" in package\.json is frozen/],
    ['npm set-script', 'npm set-script pretest "exit 0"', /the pretest script/],
    ['npm pkg set with a key that is not static', 'npm pkg set "$K"=1', /Use the Edit tool/],
    ['a copy over pyproject.toml', 'cp /dev/null pyproject.toml', /pyproject\.toml/],
    ['rm', 'rm setup.cfg', /setup\.cfg/],
  ])('denies %s', (_what, command, reason) => {
    const repo = frozenRepo();
    expectDeny(bash(repo.root, command), 'runner-settings-frozen', reason);
  });

  it.each([
    ['npm pkg set of another script', 'npm pkg set scripts.format="prettier -w ."'],
    ['npm pkg get', 'npm pkg get scripts.test'],
    ['npm install', 'npm install lodash'],
    ['reading it', 'cat package.json && grep -n test pyproject.toml'],
    ['a redirect that leaves the settings as frozen', `echo '${PKG.replace(/\n/g, '').replace('"eslint ."', '"eslint src"')}' > package.json`],
  ])('allows %s', (_what, command) => {
    const repo = frozenRepo();
    expectPass(bash(repo.root, command));
  });
});
