// No silent end (DESIGN §2, ADR 006): deleting the state, the anchor and its mirror does not read
// as "no cycle" while any trace of the open cycle remains (the project's marker, the anchor store's
// journal and stat cache, the snapshots). The gate fails closed for every gated tool and asks for
// `recover` (which rebuilds from what remains, or says it cannot) or `abort`. After `done` and
// `abort`, and in a repository that never had a cycle, nothing reads as a trace.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, IMPL, ev, lab, ok, phaseOf, toGreen, toRed, type Lab } from './fixtures.js';

const anchorStore = (l: Lab) => path.join(l.repo.root, '.git', 'tdd-gate');

/** The anchor record, its active marker and the mirror: what the earlier attacks deleted. */
function deleteRecords(l: Lab): void {
  const store = anchorStore(l);
  for (const name of readdirSync(store)) if (name.startsWith('anchor-') || name === 'active') rmSync(path.join(store, name), { recursive: true, force: true });
  rmSync(path.join(l.data, 'anchors'), { recursive: true, force: true });
}

function calls(l: Lab) {
  return [ev.write(l.o(), 'README.md', 'x'), ev.write(l.o(IMPL), 'src/add.js', 'x'), ev.bash(l.o(), 'echo hi > notes.txt'), ev.bash(l.o(), 'git commit -qam wip')];
}

function expectClosed(l: Lab): void {
  // One gated call first: the hook writes its stat cache during a cycle, so the trace set is complete.
  for (const input of calls(l)) {
    const r = l.pre(input);
    expect(r.decision, JSON.stringify(input)).toBe('deny');
    expect(r.reason).toMatch(/state-tampered/);
    expect(r.reason).toMatch(/recover|abort/);
  }
}

function expectOpen(l: Lab): void {
  for (const input of calls(l).slice(0, 3)) expect(l.pre(input).decision, JSON.stringify(input)).toBe('pass');
}

describe('deleting the records of a cycle while traces remain fails closed', () => {
  it.each<[string, (l: Lab) => void]>([
    ['state + anchor record + active marker + mirror (the journal, the project marker and the stat cache remain)', (l) => {
      rmSync(l.statePath);
      deleteRecords(l);
    }],
    ['the whole anchor store + mirror + state (the project marker remains)', (l) => {
      rmSync(l.statePath);
      rmSync(anchorStore(l), { recursive: true, force: true });
      rmSync(l.data, { recursive: true, force: true });
    }],
    ['rm -rf .tdd + anchor record + mirror (the journal and the stat cache remain)', (l) => {
      rmSync(l.repo.path('.tdd'), { recursive: true, force: true });
      deleteRecords(l);
    }],
    ['the state rewritten as done + anchor record + mirror', (l) => {
      const s = JSON.parse(readFileSync(l.statePath, 'utf8')) as Record<string, unknown>;
      writeFileSync(l.statePath, JSON.stringify({ ...s, phase: 'done' }));
      deleteRecords(l);
    }],
    ['git clean -fdx + the anchor store but the journal + mirror', (l) => {
      execFileSync('git', ['clean', '-fdxq'], { cwd: l.repo.root });
      for (const name of readdirSync(anchorStore(l))) if (name !== 'journal.jsonl' && name !== 'blobs') rmSync(path.join(anchorStore(l), name), { recursive: true, force: true });
      rmSync(l.data, { recursive: true, force: true });
    }],
  ])('%s', (_name, attack) => {
    const l = lab();
    toRed(l);
    expect(l.pre(ev.write(l.o(), 'README.md', 'x')).decision).toBe('pass');
    attack(l);
    expectClosed(l);
    // `recover` and `abort` are the person's: asked, never allowed silently; status still reads.
    expect(l.pre(ev.bash(l.o(), 'tdd-gate recover')).decision).toBe('ask');
    expect(l.pre(ev.bash(l.o(), 'tdd-gate abort --reason "records deleted"')).decision).toBe('ask');
    expect(l.pre(ev.bash(l.o(IMPL), 'tdd-gate abort --reason x')).decision).toBe('deny');
    expect(l.pre(ev.bash(l.o(), `node "${CLI}" status`)).decision).toBe('pass');
  });

  it('recover rebuilds the state from the journal and the state copy when the record and mirror are gone', () => {
    const l = lab();
    toRed(l);
    const before = readFileSync(l.statePath, 'utf8');
    l.pre(ev.write(l.o(), 'README.md', 'x'));
    rmSync(l.statePath);
    deleteRecords(l);
    expectClosed(l);
    const r = ok(l.cli('recover'));
    expect(r.stdout).toMatch(/rebuilt from the journal/);
    expect(readFileSync(l.statePath, 'utf8')).toBe(before);
    expect(phaseOf(l)).toBe('tdd-red');
    // The cycle is back and the phase table applies.
    expect(l.pre(ev.write(l.o(), 'README.md', 'y')).decision).toBe('pass');
    expect(l.pre(ev.write(l.o(IMPL), 'src/add.js', 'x')).decision).toBe('deny');
  });

  it('recover says it cannot when nothing to rebuild from remains, and abort closes the traces', () => {
    const l = lab();
    toRed(l);
    rmSync(l.statePath);
    rmSync(anchorStore(l), { recursive: true, force: true });
    rmSync(l.data, { recursive: true, force: true });
    expectClosed(l);
    const r = l.cli('recover');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/nothing to rebuild the cycle from\. End it with `tdd-gate abort/);
    ok(l.cli('abort', '--reason', 'records were deleted'));
    expectOpen(l);
    expect(readdirSync(l.repo.path('.tdd')).filter((n) => n.startsWith('open-'))).toEqual([]);
    // A new cycle starts cleanly afterwards.
    ok(l.cli('init', '--spec', 'specs/SPEC-001.md'));
    expect(phaseOf(l)).toBe('tdd-plan');
  });
});

describe('ordinary work: no trace reads as a cycle where none is open', () => {
  it('a repository that never had a cycle: every call passes and the gate writes nothing', () => {
    const l = lab();
    expectOpen(l);
    expect(existsSync(anchorStore(l))).toBe(false);
    expect(existsSync(l.repo.path('.tdd/events.jsonl'))).toBe(false);
  });

  it('after done: no trace remains, even with the anchor store and the plugin data deleted afterwards', () => {
    const l = lab();
    toGreen(l);
    l.repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    ok(l.cli('verify', 'green'));
    ok(l.cli('done'));
    expectOpen(l);
    expect(readdirSync(l.repo.path('.tdd')).filter((n) => n.startsWith('open-'))).toEqual([]);
    rmSync(anchorStore(l), { recursive: true, force: true });
    rmSync(l.data, { recursive: true, force: true });
    expectOpen(l);
  });

  it('after abort (of an active cycle, or of a state the anchor lost): no trace remains', () => {
    const l = lab();
    toRed(l);
    l.pre(ev.write(l.o(), 'README.md', 'x'));
    ok(l.cli('abort', '--reason', 'the person stops'));
    expectOpen(l);
    ok(l.cli('init', '--spec', 'specs/SPEC-001.md'));
    rmSync(l.statePath);
    ok(l.cli('abort', '--reason', 'state lost'));
    expectOpen(l);
  });

  it('a hand-written state with no anchor, deleted: no cycle (DESIGN §2)', () => {
    const l = lab();
    l.repo.write('.tdd/' + path.basename(l.statePath), JSON.stringify({ version: 1, phase: 'tdd-red', mode: 'standard', spec_id: 'S', spec_path: 'specs/SPEC-001.md', spec_hash: '', plan_artifact: '', started_at: new Date().toISOString(), phase_entered_at: new Date().toISOString() }));
    rmSync(l.statePath);
    expectOpen(l);
  });
});
