import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseGoJson } from '../../../src/verify/evidence/goJson.js';
import { instrumentCommand } from '../../../src/verify/evidence/instrument.js';
import { canaryFileName, composeRun, goCanaryPlan, goTestDirs, importPath, packageClause, type GoCanaryExpect } from '../../../src/verify/evidence/goCanary.js';

type Ev = { Action: string; Package?: string; Test?: string; Output?: string };
const P = 'ex/calc';
const run = (test: string, pkg = P): Ev => ({ Action: 'run', Package: pkg, Test: test });
const end = (action: string, test: string, pkg = P): Ev => ({ Action: action, Package: pkg, Test: test });
const pkgEnd = (action: string, pkg = P): Ev => ({ Action: action, Package: pkg });
const lines = (evs: Ev[]) => evs.map((e) => JSON.stringify(e)).join('\n');

describe('go test -json events: one story or no verdict', () => {
  it.each<[string, Ev[], RegExp | null]>([
    ['an ordinary run', [run('TestA'), end('pass', 'TestA'), run('TestB'), end('pass', 'TestB'), pkgEnd('pass')], null],
    ['-count=2 runs each test twice, in order', [run('TestA'), end('pass', 'TestA'), run('TestA'), end('pass', 'TestA'), pkgEnd('pass')], null],
    ['a failing test and a failing package', [run('TestA'), end('fail', 'TestA'), pkgEnd('fail')], null],
    ['parallel tests pause and continue', [run('TestA'), { Action: 'pause', Package: P, Test: 'TestA' }, run('TestB'), end('pass', 'TestB'), { Action: 'cont', Package: P, Test: 'TestA' }, end('pass', 'TestA'), pkgEnd('pass')], null],
    ['subtests passing under a passing parent', [run('TestA'), run('TestA/one'), end('pass', 'TestA/one'), end('pass', 'TestA'), pkgEnd('pass')], null],
    ['a test reported both passed and failed', [run('TestA'), end('fail', 'TestA'), run('TestA'), end('pass', 'TestA'), pkgEnd('fail')], /TestA was reported both passed and failed/],
    ['a test that passes without having started', [end('pass', 'TestA'), pkgEnd('pass')], /TestA ended \(pass\) without having started/],
    ['a test started twice before it ended', [run('TestA'), run('TestA'), end('pass', 'TestA'), pkgEnd('pass')], /TestA started twice without ending/],
    ['a package that passes after a test of it failed', [run('TestA'), end('fail', 'TestA'), pkgEnd('pass')], /package ex\/calc passed although a test of it failed/],
    ['a package that ends twice', [run('TestA'), end('pass', 'TestA'), pkgEnd('pass'), pkgEnd('pass')], /package ex\/calc ended twice/],
    ['a test reported after its package ended', [run('TestA'), end('pass', 'TestA'), pkgEnd('pass'), run('TestB'), end('pass', 'TestB')], /TestB was reported after its package ended/],
    ['a parent that passed with a failed subtest', [run('TestA'), run('TestA/one'), end('fail', 'TestA/one'), end('pass', 'TestA'), pkgEnd('fail')], /TestA passed although its subtest TestA\/one failed/],
    ['a package with tests and no end', [run('TestA'), end('pass', 'TestA')], /never ended the run of ex\/calc/],
  ])('%s', (_name, evs, want) => {
    const { facts } = parseGoJson(lines(evs));
    if (want === null) expect(facts.unfinished).toBeUndefined();
    else expect(facts.unfinished).toMatch(want);
  });

  it('a test failed in one of -count=2 runs is failed, never the last word', () => {
    const { facts } = parseGoJson(lines([run('TestA'), end('fail', 'TestA'), run('TestA'), end('pass', 'TestA'), pkgEnd('fail')]));
    expect(facts.tests?.find((t) => t.name === 'TestA')?.status).toBe('failed');
  });
});

const NONCE = 'abcdef0123456789';
const GATE = `TestTddGateEnd${NONCE}`;
const expectFor = (pkgs: string[], extra: Partial<GoCanaryExpect> = {}): GoCanaryExpect => ({ test: GATE, nonce: NONCE, packages: pkgs.map((p) => ({ dir: p, pkg: p })), ...extra });
const line = (pkg: string, failures: string[] = [], test = GATE, at = 'end', after = false) => JSON.stringify({ tddGateCanary: 1, go: 1, test, pkg: `${pkg}_test`, dir: '.', at, after, failures });
const whole = (pkg = P): Ev[] => [run('TestA', pkg), end('pass', 'TestA', pkg), run(GATE, pkg), end('pass', GATE, pkg), pkgEnd('pass', pkg)];

describe('the gate’s end-of-binary test in the events (binaryEnd)', () => {
  it.each<[string, Ev[], string[], GoCanaryExpect, RegExp | null]>([
    ['every package passed it and wrote its line', [...whole(), ...whole('ex/calc/sub')], [line(P), line('ex/calc/sub')], expectFor([P, 'ex/calc/sub']), null],
    ['a package without tests is not held to it', [...whole(), pkgEnd('skip', 'ex/calc/none')], [line(P)], expectFor([P]), null],
    ['its pass event is missing (the binary exited after printing fake lines)', [run('TestA'), end('pass', 'TestA'), pkgEnd('pass')], [], expectFor([P]), /test binary of ex\/calc did not run to its end.*never passed there/],
    ['its pass event printed by a source, but no line', whole(), [], expectFor([P]), /test binary of ex\/calc did not run to its end.*left no line/],
    ['its line names a finding', whole(), [line(P, ['file descriptor 1 (pipe:[1]) is not the output go test reads'])], expectFor([P]), /test output of ex\/calc was redirected while its tests ran \(file descriptor 1/],
    ['a line of another run’s nonce does not count', whole(), [line(P, [], 'TestTddGateEndffff')], expectFor([P]), /left no line/],
    ['a package that reported nothing but ended (exit in init)', [pkgEnd('pass')], [], expectFor([P]), /test binary of ex\/calc did not run to its end.*Go 1\.17 or later/],
    ['a package that reported nothing but ended, beside one that ran the gate', [...whole('ex/calc/sub'), pkgEnd('pass')], [line('ex/calc/sub')], expectFor([P, 'ex/calc/sub']), /test binary of ex\/calc did not run to its end/],
    ['the after-every-test line it promised is there', whole(), [line(P, [], GATE, 'end', true), line(P, [], GATE, 'after')], expectFor([P]), null],
    ['the after-every-test line it promised is missing (a parallel test ended the binary)', whole(), [line(P, [], GATE, 'end', true)], expectFor([P]), /test binary of ex\/calc did not run to its end.*left no line/],
    ['the after-every-test line names a finding', whole(), [line(P, [], GATE, 'end', true), line(P, ['os.Stdout is no longer file descriptor 1'], GATE, 'after')], expectFor([P]), /redirected while its tests ran \(after its last test: os\.Stdout/],
    ['the gate’s test failed', [run('TestA'), end('pass', 'TestA'), run(GATE), end('fail', GATE), pkgEnd('fail')], [line(P)], expectFor([P]), /never passed there/],
    ['a package outside the folders the gate reached (a go.work module elsewhere)', [...whole(), run('TestX', 'other/mod'), end('pass', 'TestX', 'other/mod'), pkgEnd('pass', 'other/mod')], [line(P)], expectFor([P]), null],
    ['the plan could not add the test', whole(), [], expectFor([], { problem: 'test_command runs the tests in a random order (-shuffle)' }), /could not add its end-of-binary test to go test: test_command runs the tests in a random order/],
  ])('%s', (_name, evs, canary, exp, want) => {
    const { facts } = parseGoJson(lines(evs), { expect: JSON.stringify(exp), text: canary.join('\n') });
    if (want === null) expect(facts.binaryEnd).toBeUndefined();
    else expect(facts.binaryEnd).toMatch(want);
    // the gate's own test is never one of the project's
    expect(facts.tests?.some((t) => t.name === GATE)).toBe(false);
  });
});

describe('the plan: go test with the gate’s test added', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const project = (files: Record<string, string>) => {
    const root = mkdtempSync(path.join(tmpdir(), 'tdd-gate-goplan-'));
    dirs.push(root);
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    }
    return root;
  };
  const files = {
    'go.mod': 'module ex/calc\n\ngo 1.19\n',
    'calc.go': 'package calc\n',
    'calc_test.go': '// Copyright\n\n//go:build !never\n\npackage calc\n',
    'sub/x_test.go': '/* a */ package sub_test\n',
    'sub/testdata/y_test.go': 'package nope\n',
    'vendor/v/v_test.go': 'package v\n',
    'nested/go.mod': 'module other.example/nested\n',
    'nested/n_test.go': 'package n\n',
  };

  it('finds the test folders, their package names and import paths', () => {
    const root = project(files);
    expect(goTestDirs(root).map((d) => [d.dir, d.name])).toEqual([
      ['.', 'calc'],
      ['nested', 'n'],
      ['sub', 'sub'],
    ]);
    expect(importPath(root, 'sub')).toBe('ex/calc/sub');
    expect(importPath(root, 'nested')).toBe('other.example/nested');
    expect(packageClause('// package wrong\npackage right_test\n')).toBe('right');
  });

  it.each<[string, string, RegExp]>([
    ['go test ./...', "go test -json -vet=off -overlay=@T@/overlay.json ./...", /^$/],
    ['go test -json ./...', "go test -vet=off -overlay=@T@/overlay.json -json ./...", /^$/],
    ['go test -run TestAdd ./...', "go test -json -vet=off -overlay=@T@/overlay.json -run='(?:TestAdd)|^@G@$' ./...", /^$/],
    ["go test -run 'TestA/sub(1|2)' ./...", "go test -json -vet=off -overlay=@T@/overlay.json -run='(?:TestA)|^@G@$/sub(1|2)' ./...", /^$/],
    ['go test -vet=off ./...', 'go test -json -overlay=@T@/overlay.json -vet=off ./...', /^$/],
    ['go test ./... -args -x', 'go test -json -vet=off -overlay=@T@/overlay.json ./... -args -x', /^$/],
  ])('%s', (cmd, want, _none) => {
    const root = project(files);
    const plan = goCanaryPlan('go test', cmd.slice('go test'.length), root, '/runs/r.canary', NONCE);
    expect(plan.expect.problem).toBeUndefined();
    expect(plan.command.replace(plan.tempFiles!.token, '@T@').replace(GATE, '@G@')).toBe(want);
    const overlay = JSON.parse(plan.tempFiles!.files['overlay.json']!) as { Replace: Record<string, string> };
    expect(Object.keys(overlay.Replace).map((k) => k.replace(/\u{10FFFD}/gu, '~'))).toEqual([`~tddgate_${NONCE}_test.go`, `nested/~tddgate_${NONCE}_test.go`, `sub/~tddgate_${NONCE}_test.go`]);
    expect(plan.expect.packages).toEqual([
      { dir: '.', pkg: 'ex/calc' },
      { dir: 'nested', pkg: 'other.example/nested' },
      { dir: 'sub', pkg: 'ex/calc/sub' },
    ]);
    const src = plan.tempFiles!.files[overlay.Replace[`sub/\u{10FFFD}tddgate_${NONCE}_test.go`]!.split('/').pop()!]!;
    expect(src).toMatch(/^package sub_test\n/);
    expect(src).toContain(`func ${GATE}(t *testing.T)`);
    expect(src).toContain('"/runs/r.canary"');
  });

  it.each<[string, RegExp]>([
    ['go test -vet=all ./...', /sets -vet/],
    ['go test -list . ./...', /lists or only builds/],
    ['go test -run "$PAT" ./...', /-run pattern is not a plain or quoted word/],
    ['go test -overlay=missing.json ./...', /-overlay file the gate cannot read/],
  ])('%s is refused plainly', (cmd, want) => {
    const plan = goCanaryPlan('go test', cmd.slice('go test'.length), project(files), '/r', NONCE);
    expect(plan.expect.problem).toMatch(want);
    expect(plan.tempFiles).toBeUndefined();
    expect(plan.command).toContain('-json');
  });

  it('-shuffle is dropped for the verify (the gate’s test must run last); -shuffle=off stays', () => {
    const on = goCanaryPlan('go test', ' -shuffle=on -count=1 ./...', project(files), '/r', NONCE);
    expect(on.expect.problem).toBeUndefined();
    expect(on.command).not.toMatch(/shuffle/);
    expect(on.command).toMatch(/ -count=1 \.\/\.\.\.$/);
    expect(goCanaryPlan('go test', ' -shuffle 42 ./...', project(files), '/r', NONCE).command).not.toMatch(/shuffle|\s42\s/);
    expect(goCanaryPlan('go test', ' -shuffle=off ./...', project(files), '/r', NONCE).command).toMatch(/-shuffle=off/);
  });

  it('instrumentCommand plans it for a go test the project root is known for, and hands the expectation on', () => {
    const root = project(files);
    const plan = instrumentCommand('go test ./...', '/runs/x.report', undefined, { root });
    expect(plan).toMatchObject({ kind: 'go-json', canary: '/runs/x.report.canary' });
    expect(plan.command).toMatch(/^go test -json -vet=off -overlay=@tdd-gate-go-[0-9a-f]{24}@\/overlay\.json \.\/\.\.\.$/);
    const exp = JSON.parse(plan.expect!) as GoCanaryExpect;
    expect(exp.test).toMatch(/^TestTddGateEnd[0-9a-f]{16}$/);
    expect(exp.packages).toHaveLength(3);
    // a fresh nonce every run
    expect((JSON.parse(instrumentCommand('go test ./...', '/runs/x.report', undefined, { root }).expect!) as GoCanaryExpect).nonce).not.toBe(exp.nonce);
    // a `|` inside quotes is the pattern's, not a pipe
    expect(instrumentCommand("go test -run 'TestA|TestB' ./...", '/r', undefined, { root }).command).toMatch(/-run='\(\?:TestA\|TestB\)\|\^TestTddGateEnd[0-9a-f]{16}\$' \.\/\.\.\.$/);
    // inside a compound command the go test call itself is instrumented, from the folder a `cd` moved to
    const behind = instrumentCommand('go vet ./... && go test ./...', '/r', undefined, { root });
    expect(behind).toMatchObject({ kind: 'go-json' });
    expect(behind.command).toMatch(/^go vet \.\/\.\.\. && go test -json -vet=off -overlay=\S+ \.\/\.\.\.$/);
    const moved = instrumentCommand('cd sub && go test ./...', '/r', undefined, { root });
    expect(moved.command).toMatch(/^cd sub && go test -json -vet=off -overlay=\S+ \.\/\.\.\.$/);
    expect((JSON.parse(moved.expect!) as GoCanaryExpect).packages).toEqual([{ dir: '.', pkg: 'ex/calc/sub' }]);
    // two go test calls in one command: one run is judged at a time; GREEN is refused with the way forward
    const twice = instrumentCommand('go test ./a/... && go test ./sub/...', '/r', undefined, { root });
    expect(twice).toMatchObject({ command: 'go test ./a/... && go test ./sub/...', kind: 'go-json' });
    const text = parseGoJson('ok  \tex/calc\t0.01s\n--- PASS: TestAdd (0.00s)\n', { expect: twice.expect!, text: null });
    expect(text.facts.binaryEnd).toMatch(/runs go test behind other shell syntax .*make test_command a plain `go test …` call/);
    expect(text.facts.tests).toBeNull();
    // go -C <folder> test: the folder's packages, paths relative to it
    const c = instrumentCommand('go -C sub test ./...', '/r', undefined, { root });
    expect(c.command).toMatch(/^go -C sub test -json -vet=off -overlay=\S+ \.\/\.\.\.$/);
    expect((JSON.parse(c.expect!) as GoCanaryExpect).packages).toEqual([{ dir: '.', pkg: 'ex/calc/sub' }]);
  });

  it('merges the project’s own -overlay with the gate’s', () => {
    const root = project({ ...files, 'ov.json': JSON.stringify({ Replace: { 'calc.go': 'alt/calc.go' } }) });
    const plan = goCanaryPlan('go test', ' -overlay=ov.json ./...', root, '/r', NONCE);
    expect(plan.command.match(/-overlay/g)).toHaveLength(1);
    const overlay = JSON.parse(plan.tempFiles!.files['overlay.json']!) as { Replace: Record<string, string> };
    expect(overlay.Replace['calc.go']).toBe('alt/calc.go');
    expect(Object.keys(overlay.Replace)).toHaveLength(4);
  });

  it('the file sorts after every Go file of its folder; -run keeps its subtest levels', () => {
    const name = canaryFileName('n', ['a_test.go', 'zzz_test.go', '\u{10FFFD}x.go']);
    for (const f of ['a_test.go', 'zzz_test.go', '\u{10FFFD}x.go']) expect(Buffer.compare(Buffer.from(f), Buffer.from(name))).toBe(-1);
    expect(composeRun('A/[/]b/(c/d)', 'G')).toBe('(?:A)|^G$/[/]b/(c/d)');
    expect(composeRun('(A/B)|C', 'G')).toBe('(?:(A/B)|C)|^G$');
  });

  it('the Go source writes JSON the judge reads', () => {
    // the escaper is Go code: its table of special bytes is what JSON needs
    const src = goCanaryPlan('go test', ' ./...', project(files), '/r"q', NONCE).tempFiles!.files['end0_test.go']!;
    expect(src).toContain('out := "/r\\"q"');
  });
});
