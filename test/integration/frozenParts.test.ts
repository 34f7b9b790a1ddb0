import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ABSENT_PART, PART_FILES, partText } from '../../src/state/rules/runnerParts.js';
import { ev } from '../helpers/events.js';
import { runHookBundle } from '../helpers/hook.js';
import { DEFAULT_STACK, state, testRepo, type TestRepo } from '../helpers/repo.js';

const IMPL = { agent_type: 'tdd-gate:implementer' };
const STACK = { ...DEFAULT_STACK, test_command: 'npm test' };
const PKG = JSON.stringify({ name: 'x', type: 'module', scripts: { test: 'vitest run', lint: 'eslint .' }, devDependencies: { vitest: '^4' } }, null, 2) + '\n';
const PYPROJECT = '[project]\nname = "x"\nversion = "1.0"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n';
const SETUP_CFG = '[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n';
const GO_MOD = 'module example.com/x\n\ngo 1.22\n\nrequire github.com/stretchr/testify v1.9.0\n\nreplace example.com/y => ./y\n';
const CARGO = '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nserde = "1"\n\n[dev-dependencies]\npretty_assertions = "1"\n';

/** A repo in `phase` whose freeze recorded the runner parts of these files, as `tdd-gate freeze` does. */
function frozenRepo(phase = 'tdd-green'): TestRepo {
  const files: Record<string, string> = { 'package.json': PKG, 'pyproject.toml': PYPROJECT, 'setup.cfg': SETUP_CFG, 'go.mod': GO_MOD, 'Cargo.toml': CARGO, 'src/a.ts': 'export {};\n' };
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
    ['a replace in go.mod', 'go.mod', './y', './fake', /"replace" in go\.mod is frozen with the tests/],
    ['the go version in go.mod', 'go.mod', 'go 1.22', 'go 1.21', /"go" in go\.mod is frozen/],
    ['a dev-dependency in Cargo.toml', 'Cargo.toml', 'pretty_assertions = "1"', 'pretty_assertions = { path = "fake" }', /\[dev-dependencies\] in Cargo\.toml is frozen/],
    ['autotests in Cargo.toml', 'Cargo.toml', 'edition = "2021"', 'edition = "2021"\nautotests = false', /\[package\] autotests in Cargo\.toml is frozen/],
    ['a test target in Cargo.toml', 'Cargo.toml', '[dev-dependencies]', '[[test]]\nname = "a"\nharness = false\n\n[dev-dependencies]', /\[test\] in Cargo\.toml is frozen/],
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
    ['a requirement in go.mod', 'go.mod', 'require github.com/stretchr/testify v1.9.0', 'require (\n\tgithub.com/stretchr/testify v1.9.0\n\tgolang.org/x/text v0.14.0\n)'],
    ['a dependency in Cargo.toml', 'Cargo.toml', 'serde = "1"', 'serde = "1"\nrand = "0.8"'],
    ['the crate version in Cargo.toml', 'Cargo.toml', 'version = "0.1.0"', 'version = "0.2.0"'],
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
    ['sed -i of the test script', `sed -i 's/vitest run/true/' package.json`, /the test script in package\.json is frozen with the tests \(scripts\.test\)/],
    ['perl -pi of the pytest section', `perl -pi -e 's/-q/-q -k not_slow/' pyproject.toml`, /\[tool\.pytest…\] in pyproject\.toml is frozen/],
    ['a copy of a file this command wrote, whose content is known', `echo '{"name":"x"}' > /tmp/tdd-gate-p.json && cp /tmp/tdd-gate-p.json package.json`, /scripts\.test/],
    ['npm pkg set of the test script', 'npm pkg set scripts.test="vitest run -t adds"', /the test script in package\.json is frozen/],
    ['npm pkg delete of the module type', 'npm pkg delete type', /"type" in package\.json is frozen/],
    ['npm set-script', 'npm set-script pretest "exit 0"', /the pretest script/],
    ['a copy over pyproject.toml', 'cp /dev/null pyproject.toml', /pyproject\.toml/],
    ['rm', 'rm setup.cfg', /setup\.cfg/],
    ['sed -i of a replace in go.mod', "sed -i 's#./y#./fake#' go.mod", /"replace" in go\.mod is frozen/],
    ['perl -pi of a dev-dependency in Cargo.toml', `perl -pi -e 's/pretty_assertions = "1"/pretty_assertions = { path = "fake" }/' Cargo.toml`, /\[dev-dependencies\] in Cargo\.toml/],
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
    // What these leave cannot be computed: the rest of the file is the project's, and the part is checked after the call.
    ['jq into a temporary file moved over package.json', `jq '.dependencies.lodash = "^4"' package.json > tmp.json && mv tmp.json package.json`],
    ['the same through a temporary directory', `t=$(mktemp) && jq '.devDependencies.zod = "^4"' package.json > "$t" && mv "$t" package.json`],
    ['an inline script rewriting package.json', `node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync("package.json","utf8"));p.dependencies={lodash:"^4"};fs.writeFileSync("package.json",JSON.stringify(p,null,2))'`],
    ['python rewriting package.json', `python3 -c 'import json; p=json.load(open("package.json")); p["dependencies"]={"x":"1"}; json.dump(p, open("package.json","w"), indent=2)'`],
    ['sed -i adding a dependency', `sed -i 's/"vitest": "^4"/"vitest": "^4", "lodash": "^4"/' package.json`],
    ['sed -i on pyproject.toml outside the pytest section', `sed -i 's/version = "1.0"/version = "1.1"/' pyproject.toml`],
    ['npm pkg set with a key that is not static (checked after the call)', 'npm pkg set "$K"=1'],
    ['uv, poetry, pnpm and yarn adding a dependency', 'uv add requests && poetry add httpx && pnpm add lodash && yarn add zod'],
    ['cargo and go adding a dependency', 'cargo add rand && go get golang.org/x/text && go mod tidy'],
    ['sed -i adding a dependency to Cargo.toml', `sed -i 's/^serde = "1"$/serde = "1"\\nrand = "0.8"/' Cargo.toml`],
    ['a new go.mod in a new folder', "mkdir -p svc && printf 'module example.com/svc\\n\\ngo 1.22\\n' > svc/go.mod"],
    ['a new Cargo.toml in a new folder', "mkdir -p crates/b && printf '[package]\\nname = \"b\"\\n' > crates/b/Cargo.toml"],
  ])('allows %s', (_what, command) => {
    const repo = frozenRepo();
    expectPass(bash(repo.root, command));
  });
});

describe('after a Bash call whose result the gate could not compute, the frozen settings are checked (PostToolUse)', () => {
  const post = (repo: TestRepo, command: string) => {
    const input = { session_id: 's', transcript_path: '/tmp/t.jsonl', cwd: repo.root, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command }, tool_response: { stdout: '', stderr: '' }, tool_use_id: 'toolu_1', ...IMPL, agent_id: 'a1' };
    const r = runHookBundle(input, { event: 'PostToolUse' });
    return r.stdout.trim() === '' ? null : (JSON.parse(r.stdout) as { decision?: string; reason?: string });
  };

  it('says nothing when only a dependency was added', () => {
    const repo = frozenRepo();
    repo.write('package.json', PKG.replace('"vitest": "^4"', '"vitest": "^4",\n    "lodash": "^4"'));
    repo.write('pyproject.toml', PYPROJECT.replace('name = "x"', 'name = "x"\ndependencies = ["requests"]'));
    repo.write('go.mod', GO_MOD + 'require golang.org/x/text v0.14.0\n');
    repo.write('Cargo.toml', CARGO.replace('serde = "1"', 'serde = "1"\nrand = "0.8"'));
    expect(post(repo, `jq '.dependencies.lodash = "^4"' package.json > t && mv t package.json`)).toBeNull();
  });

  it.each([
    ['the test script', 'package.json', PKG.replace('"vitest run"', '"vitest run -t adds"')],
    ['the module type', 'package.json', PKG.replace('"module"', '"commonjs"')],
    ['the pytest section', 'pyproject.toml', PYPROJECT.replace('addopts = "-q"', 'addopts = "-q -k not_slow"')],
    ['a replace (go mod edit)', 'go.mod', GO_MOD.replace('./y', './fake')],
    ['the whole file removed', 'setup.cfg', null],
  ])('tells the model when %s changed, and records it', (_what, file, content) => {
    const repo = frozenRepo();
    if (content === null) rmSync(repo.path(file));
    else repo.write(file, content);
    const out = post(repo, 'npm run fix-deps');
    expect(out?.decision).toBe('block');
    expect(out?.reason).toContain('[runner-settings-frozen]');
    expect(out?.reason).toContain(file);
    expect(readFileSync(repo.path('.tdd/events.jsonl'), 'utf8')).toContain('"type":"runner-settings-drift"');
  });
});
