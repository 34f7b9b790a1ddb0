import { describe, expect, it } from 'vitest';
import type { BashAnalysis, BashWrite } from '../../src/gate/rules/bash/types.js';
import type { PathClass } from '../../src/state/rules/classify.js';
import { TooManyFiles, decideBash, type BashFacts, type TargetFact } from '../../src/gate/rules/decideBash.js';

/** The Bash policy as a pure function: an analysis and a table of disk facts in, a Decision out. No dist/, no disk. */
const ROOT = '/p';

interface World {
  phase?: 'tdd-plan' | 'tdd-red' | 'tdd-green' | 'tdd-refactor';
  agent?: string | undefined;
  /** Class of each absolute path; anything else is `other` (outside the project when not under /p). */
  classes?: Record<string, PathClass>;
  existing?: readonly string[];
  content?: Record<string, string>;
  /** Paths a tree or glob write expands to. */
  expands?: Readonly<Record<string, readonly string[]>>;
  unresolved?: Record<string, string>;
  tooMany?: boolean;
  /** Paths frozen with the tests that no test glob names (runner configs). */
  configs?: readonly string[];
}

function facts(w: World): BashFacts {
  const classOf = (abs: string): PathClass => w.classes?.[abs] ?? 'other';
  const fact = (abs: string): TargetFact => ({
    abs,
    real: abs,
    classes: [classOf(abs)],
    inProject: abs === ROOT || abs.startsWith(ROOT + '/'),
    exists: (w.existing ?? []).includes(abs),
    ...(w.unresolved?.[abs] !== undefined ? { unresolved: w.unresolved[abs] } : {}),
    ...((w.configs ?? []).includes(abs) ? { config: true } : {}),
  });
  const phase = w.phase ?? 'tdd-green';
  return {
    cwd: ROOT,
    agentType: 'agent' in w ? w.agent : 'tdd-gate:implementer',
    specId: 'SPEC-001',
    phase,
    mode: 'standard',
    cycle: () => ({ phase, mode: 'standard', role: 'agent' in w ? (w.agent ?? null) : 'tdd-gate:implementer', specRel: 'specs/SPEC-001.md', specDrift: null }),
    *targets(write: BashWrite, cwd: string) {
      if (w.tooMany) throw new TooManyFiles();
      const abs = write.path.startsWith('/') ? write.path : `${cwd}/${write.path}`;
      for (const p of [abs, ...(w.expands?.[abs] ?? [])]) yield fact(p);
    },
    classesOf: (cwd, raw) => [classOf(raw.startsWith('/') ? raw : `${cwd}/${raw}`)],
    contentAfter: (write, _cwd, real) => (write.metadataOnly ? (w.content?.[real] ?? '') : (write.content ?? null)),
    outsideProject: (dir) => !(dir === ROOT || dir.startsWith(ROOT + '/')),
    allExist: (paths, cwd) => paths.every((p) => (w.existing ?? []).includes(`${cwd}/${p}`)),
    display: (abs) => (abs.startsWith(ROOT + '/') ? abs.slice(ROOT.length + 1) : abs),
  };
}

const none: BashAnalysis = { writes: [], unknown: [], mentions: [], cliCalls: [], headMoves: [], parseErrors: [] };
const write = (path: string, extra: Partial<BashWrite> = {}): BashAnalysis => ({ ...none, writes: [{ path, cwd: ROOT, via: 'test', ...extra }] });
const TESTS = { '/p/tests/a.test.ts': 'test', '/p/src/a.ts': 'source', '/p/src/stub.ts': 'source' } as const;

const rule = (a: BashAnalysis, w: World = {}) => {
  const d = decideBash(a, facts({ classes: { ...TESTS }, ...w }));
  return d.kind === 'pass' ? 'pass' : `${d.kind}:${d.ruleId}`;
};

describe('decideBash', () => {
  it.each([
    ['nothing written', none, {}, 'pass'],
    ['a frozen test in GREEN', write('tests/a.test.ts'), {}, 'deny:tests-frozen'],
    ['a source in GREEN', write('src/a.ts'), {}, 'pass'],
    ['a file outside the project', write('/tmp/x.log'), {}, 'pass'],
    ['a source in RED without the stub marker', write('src/a.ts', { content: 'x' }), { phase: 'tdd-red', agent: 'tdd-gate:test-writer' }, 'deny:red-source'],
    ['a source in RED that keeps the marker', write('src/a.ts', { content: '// STUB:TDD\nexport function a() { return 0; }\n' }), { phase: 'tdd-red', agent: 'tdd-gate:test-writer' }, 'pass'],
    ['touch of an existing stub in RED', write('src/stub.ts', { metadataOnly: true }), { phase: 'tdd-red', agent: 'tdd-gate:test-writer', existing: ['/p/src/stub.ts'] }, 'pass'],
    ['touch of an existing frozen test in GREEN', write('tests/a.test.ts', { metadataOnly: true }), { existing: ['/p/tests/a.test.ts'] }, 'pass'],
    ['touch creating a test in GREEN', write('tests/a.test.ts', { metadataOnly: true }), {}, 'deny:tests-frozen'],
    ['touch creating an empty source in RED', write('src/a.ts', { metadataOnly: true }), { phase: 'tdd-red', agent: 'tdd-gate:test-writer' }, 'deny:red-source'],
    ['a tree write that reaches a test', write('.', { tree: true }), { expands: { '/p/.': ['/p/tests/a.test.ts'] } }, 'deny:tests-frozen'],
    ['a snapshot update touching only sources', write('.', { tree: true, onlyTests: true }), { expands: { '/p/.': ['/p/src/a.ts'] } }, 'pass'],
    ['a target the disk cannot pin down', write('/tmp/build-', { dynamicTail: true }), { unresolved: { '/tmp/build-': 'a path computed at run time' } }, 'deny:bash-unresolved'],
    ['a glob too broad to check', write('**', { glob: true }), { tooMany: true }, 'deny:bash-unresolved'],
    ['the test-validator writing in the project', write('docs/x.md'), { agent: 'tdd-gate:test-validator' }, 'deny:validator-read-only'],
    ['the test-validator writing a scratch file outside', write('/tmp/log'), { agent: 'tdd-gate:test-validator' }, 'pass'],
  ] as const)('%s → %s', (_name, analysis, world, expected) => {
    expect(rule(analysis, world)).toBe(expected);
  });

  it('denies unresolved writes with a reason that never suggests a construct the gate cannot see', () => {
    const d = decideBash({ ...none, unknown: ['rm writes to $X, which cannot be resolved statically'] }, facts({}));
    expect(d.kind).toBe('deny');
    expect(d.kind === 'deny' && d.reason).toContain('$X');
    expect(d.kind === 'deny' && d.reason).not.toMatch(/script/);
  });

  it('says why a RED source write is refused when what it leaves cannot be computed', () => {
    const reason = (extra: Partial<BashWrite>) => {
      const d = decideBash(write('src/a.ts', extra), facts({ classes: { ...TESTS }, phase: 'tdd-red', agent: 'tdd-gate:test-writer' }));
      return d.kind === 'deny' ? d.reason : '';
    };
    expect(reason({})).toMatch(/cannot tell what this command leaves in the file.*Edit or Write tool, keeping the marker/);
    expect(reason({ content: 'x' })).not.toMatch(/cannot tell/);
  });

  it('names a frozen runner config as one, not as a test file', () => {
    const d = decideBash(write('vitest.config.ts'), facts({ classes: { '/p/vitest.config.ts': 'test' }, configs: ['/p/vitest.config.ts'] }));
    expect(d.kind === 'deny' && d.ruleId).toBe('tests-frozen');
    expect(d.kind === 'deny' && d.reason).toMatch(/it is test-runner configuration frozen with the tests/);
    expect(d.kind === 'deny' && d.reason).not.toMatch(/test file/);
  });

  it('judges unparsed text by the protected paths it names', () => {
    const m = (candidates: string[]) => ({ ...none, mentions: [{ reason: 'the command could not be parsed', candidates, cwd: ROOT }] });
    expect(rule(m(['tests/a.test.ts']))).toBe('deny:bash-unresolved');
    expect(rule(m(['README.md', 'src/a.ts']))).toBe('pass');
  });

  it('denies HEAD moves in the project, not in another repository, and not a file restore', () => {
    const move = (cwds: string[], unless?: string[]) => ({ ...none, headMoves: [{ text: 'git checkout x', cwds, ...(unless ? { unlessPaths: { paths: unless, cwd: ROOT } } : {}) }] });
    expect(rule(move([ROOT]))).toBe('deny:head-move');
    expect(rule(move(['/elsewhere']))).toBe('pass');
    expect(rule(move([ROOT], ['src/a.ts']), { existing: ['/p/src/a.ts'] })).toBe('pass');
  });

  it('keeps the CLI rules: subagents never change the cycle, the main thread confirms an abort', () => {
    const cli = (verb: string) => ({ ...none, cliCalls: [{ verb, args: [], literal: true, text: `tdd-gate ${verb}` }] });
    expect(rule(cli('verify green'))).toBe('deny:subagent-cli');
    expect(rule(cli('status'))).toBe('pass');
    expect(rule(cli('abort'), { agent: undefined })).toBe('ask:cli-confirm');
  });
});
