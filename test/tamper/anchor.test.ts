import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAnchor, repairAnchor } from '../../src/state/anchor.js';
import { anchorPaths } from '../../src/state/anchorPaths.js';
import { findRepo } from '../../src/state/repo.js';
import { state } from '../helpers/repo.js';
import { CLI, IMPL, ev, lab, ok, phaseOf, toGreen, toRed } from './fixtures.js';

/** The git common dir's anchor, as the issue describes it (computed here, not by the product). */
function anchorDir(root: string): string {
  return path.join(root, '.git', 'tdd-gate');
}

describe('the anchor: a cycle cannot be ended by deleting or rewriting its state', () => {
  it('journals every CLI state change outside the work tree, mirrored under CLAUDE_PLUGIN_DATA', () => {
    const l = lab();
    toRed(l);
    const journal = readFileSync(path.join(anchorDir(l.repo.root), 'journal.jsonl'), 'utf8').trim().split('\n');
    expect(journal.map((line) => (JSON.parse(line) as { phase: string }).phase)).toEqual(['tdd-plan', 'tdd-red']);
    const chains = journal.map((line) => (JSON.parse(line) as { chain: string }).chain);
    expect(new Set(chains).size).toBe(2);
    expect(execFileSync('find', [l.data, '-name', 'anchor-*'], { encoding: 'utf8' }).trim()).not.toBe('');
  });

  it.each([
    ['rm of the state file', (root: string, file: string) => rmSync(file)],
    ['rm -rf .tdd', (root: string) => rmSync(path.join(root, '.tdd'), { recursive: true, force: true })],
    ['git clean -fdx (a `make clean`)', (root: string) => execFileSync('git', ['clean', '-fdxq'], { cwd: root })],
    ['a truncated state', (_root: string, file: string) => writeFileSync(file, '')],
  ])('denies every gated call after %s, and tells the model to stop and report', (_name, remove) => {
    const l = lab();
    toRed(l);
    remove(l.repo.root, l.statePath);
    for (const input of [ev.write(l.o(), 'README.md', 'x'), ev.write(l.o(IMPL), 'src/add.js', 'x'), ev.bash(l.o(), 'echo hi > notes.txt')]) {
      const r = l.pre(input);
      expect(r.decision).toBe('deny');
      expect(r.reason).toMatch(/^tdd-gate rule \[state-tampered\]/);
      expect(r.reason).toMatch(/Stop and report this to the user/);
      expect(r.reason).not.toMatch(/script|bash scripts/i);
    }
    // The after-the-fact check says so too, right after the command that did it.
    expect(l.post('make clean').out).toMatchObject({ decision: 'block' });
  });

  it('lets `status` through and asks the person for `recover`, which restores the state and the control files', () => {
    const l = lab();
    toRed(l);
    const before = readFileSync(l.statePath, 'utf8');
    execFileSync('git', ['clean', '-fdxq'], { cwd: l.repo.root });
    expect(l.pre(ev.bash(l.o(), `node "${CLI}" status`)).decision).toBe('pass');
    const asked = l.pre(ev.bash(l.o(), `node "${CLI}" recover`));
    expect(asked.decision).toBe('ask');
    expect(l.pre(ev.bash(l.o(IMPL), `node "${CLI}" recover`)).decision).toBe('deny');
    const r = ok(l.cli('recover'));
    expect(r.stdout).toMatch(/restored .*state-main/);
    expect(readFileSync(l.statePath, 'utf8')).toBe(before);
    expect(existsSync(l.repo.path('.tdd/stack.json'))).toBe(true);
    expect(existsSync(l.repo.path('.tdd/plans/SPEC-001.md'))).toBe(true);
    // The cycle is back: the phase table applies again.
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
    expect(l.pre(ev.write(l.o(IMPL), 'src/add.js', 'x')).reason).toMatch(/red-source/);
  });

  it('refuses a state written back with new hashes: the hook denies, the CLI changes nothing', () => {
    const l = lab();
    toGreen(l);
    const st = JSON.parse(readFileSync(l.statePath, 'utf8')) as Record<string, unknown> & { frozen: { files: Record<string, string> } };
    l.repo.write('test/add.test.js', "import { test } from 'node:test';\ntest('adds', () => {});\n");
    const weakened = createHashOf(readFileSync(l.repo.path('test/add.test.js')));
    writeFileSync(l.statePath, JSON.stringify({ ...st, frozen: { ...st.frozen, files: { ...st.frozen.files, 'test/add.test.js': weakened } } }, null, 2) + '\n');
    expect(l.pre(ev.write(l.o(IMPL), 'src/add.js', 'export const add = (a, b) => a + b;\n')).reason).toMatch(/state-tampered/);
    l.repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    expect(ok(l.cli('verify', 'green'), 1).stderr).toMatch(/differs from the one the tdd-gate CLI last wrote/);
    ok(l.cli('done'), 1);
    expect(existsSync(l.repo.path('.tdd/evidence'))).toBe(false);
    // The person can still end it on purpose.
    ok(l.cli('abort', '--reason', 'state was tampered with'));
    expect(phaseOf(l)).toBe('done');
    expect(l.pre(ev.write(l.o(), 'test/add.test.js', 'x')).decision).toBe('pass');
  });

  it('tells a resumed session at its start that the state is gone and how the user restores it', () => {
    const l = lab();
    toRed(l);
    rmSync(l.statePath);
    const r = l.hook({ session_id: 's', cwd: l.repo.root, hook_event_name: 'SessionStart', source: 'resume' }, 'SessionStart');
    const context = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(context).toMatch(/tdd-gate recover/);
  });

  it('survives the loss of the anchor in the git dir while the mirror holds it', () => {
    const l = lab();
    toRed(l);
    rmSync(anchorDir(l.repo.root), { recursive: true, force: true });
    rmSync(l.statePath);
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).reason).toMatch(/state-tampered/);
    // The lost copy is put back by the first gated call that finds the copies disagreeing, so deleting the mirror next finds it restored.
    expect(readdirSync(anchorDir(l.repo.root)).some((n) => n.startsWith('anchor-') && n.endsWith('.json'))).toBe(true);
    rmSync(path.join(l.data, 'anchors'), { recursive: true, force: true });
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).reason).toMatch(/state-tampered/);
    ok(l.cli('recover'));
    expect(phaseOf(l)).toBe('tdd-red');
  });

  it('reading the anchor writes nothing; repairing it puts a lost or lagging copy back from the other', () => {
    const l = lab();
    toRed(l);
    const paths = anchorPaths(findRepo(l.repo.root)!, l.env);
    const mirror = paths.mirror!;
    const kept = readFileSync(mirror.record, 'utf8');
    rmSync(paths.record);
    rmSync(mirror.active);
    expect(readAnchor(paths)?.phase).toBe('tdd-red');
    expect([existsSync(paths.record), existsSync(mirror.active)]).toEqual([false, false]);
    expect(repairAnchor(paths)?.phase).toBe('tdd-red');
    expect(readFileSync(paths.record, 'utf8')).toBe(kept);
    expect(existsSync(mirror.active)).toBe(true);
  });

  it('keeps a hand-written state with no anchor valid, and an ended cycle ends the anchor', () => {
    const l = lab();
    l.repo.setState(state('tdd-green'));
    expect(l.pre(ev.write(l.o(IMPL), 'src/add.js', 'x')).decision).toBe('pass');
    rmSync(l.statePath);
    toRed(l);
    ok(l.cli('abort', '--reason', 'done for today'));
    rmSync(l.statePath);
    expect(l.pre(ev.write(l.o(), 'test/x.test.js', 'x')).decision).toBe('pass');
  });

  it('a spoiled anchor record with its marker still there is tampering too; abort ends it', () => {
    const l = lab({ data: false });
    toRed(l);
    const dir = anchorDir(l.repo.root);
    for (const name of readdirSync(dir)) if (name.startsWith('anchor-')) writeFileSync(path.join(dir, name), '{"version":1}');
    rmSync(l.statePath);
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).reason).toMatch(/state-tampered.*anchor/s);
    ok(l.cli('abort', '--reason', 'anchor spoiled'));
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
  });

  it('the person can end a cycle whose state file is gone', () => {
    const l = lab();
    toRed(l);
    rmSync(l.statePath);
    ok(l.cli('abort', '--reason', 'lost the state'));
    expect(l.pre(ev.write(l.o(), 'test/x.test.js', 'x')).decision).toBe('pass');
  });
});

function createHashOf(data: Buffer): string {
  return execFileSync('sha256sum', { input: data, encoding: 'utf8' }).split(' ')[0]!;
}
