import { describe, expect, it } from 'vitest';
import { parseResult, type BlockErrorCode, type Expect, type TddResult } from '../../src/handoff/rules/block.js';
import { parseYamlSubset } from '../../src/handoff/rules/yamlSubset.js';

const F = '```';
const block = (...lines: string[]) => [`${F}tdd-result`, ...lines, F].join('\n');

const TW = ['role: test-writer', 'status: ok', 'ac: AC-1', 'files:', '  - tests/a.test.ts', 'command: npx vitest run tests/a.test.ts', 'output_excerpt: |', '  FAIL tests/a.test.ts', '  AssertionError: expected 0 to be 3'];
const IMPL = ['role: implementer', 'status: ok', 'files: [src/a.ts]', 'command: npx vitest run', 'output_excerpt: |', '  1 passed', 'refactor_needed: false'];

type Valid = [name: string, message: string, expect: Partial<TddResult>, opts?: Expect];

const valid: Valid[] = [
  ['a full test-writer block', `I wrote one test.\n\n${block(...TW, 'notes: one failing test')}\n`, { role: 'test-writer', status: 'ok', ac: 'AC-1', files: ['tests/a.test.ts'], command: 'npx vitest run tests/a.test.ts', output_excerpt: 'FAIL tests/a.test.ts\nAssertionError: expected 0 to be 3', notes: 'one failing test' }, { role: 'test-writer', ac: 'AC-1' }],
  ['an implementer with refactor_needed false', block(...IMPL), { role: 'implementer', files: ['src/a.ts'], refactor_needed: false }],
  ['refactor reasons as a flow list', block(...IMPL.slice(0, -1), 'refactor_needed: true', 'refactor_reasons: [duplication, naming]'), { refactor_needed: true, refactor_reasons: ['duplication', 'naming'] }],
  ['refactor reasons as a block list', block(...IMPL.slice(0, -1), 'refactor_needed: true', 'refactor_reasons:', '  - long function'), { refactor_reasons: ['long function'] }],
  ['a test-validator with only a verdict', block('role: test-validator', 'status: ok', 'verdict: PASS'), { role: 'test-validator', verdict: 'PASS', files: [] }],
  ['a validator with CONCERNS', block('role: test-validator', 'status: ok', 'verdict: CONCERNS', 'notes: edge case missing'), { verdict: 'CONCERNS' }],
  ['a planner listing its criteria', block('role: planner', 'status: ok', 'files:', '  - .tdd/plans/SPEC-001.md', 'acs: [AC-1, AC-2]'), { role: 'planner', acs: ['AC-1', 'AC-2'] }],
  ['list items at the key column', block('role: refactorer', 'status: ok', 'files:', '- src/a.ts', '- src/b.ts', 'command: npx vitest run', 'output_excerpt: ok'), { files: ['src/a.ts', 'src/b.ts'] }],
  ['quoted scalars and trailing comments', block('role: "implementer"   # me', "status: 'ok'", 'ac: AC-2  # the second', 'files: ["src/a b.ts"]', 'command: npx vitest run', 'output_excerpt: "all \\"green\\""', 'refactor_needed: false'), { role: 'implementer', ac: 'AC-2', files: ['src/a b.ts'], output_excerpt: 'all "green"' }],
  ['CRLF line endings', block(...IMPL).replace(/\n/g, '\r\n'), { role: 'implementer' }],
  ['fences inside output_excerpt', block(...TW.slice(0, 7), `  ${F}`, '  not ok 1 - adds', `  ${F}`, '  ~~~', '  tail'), { output_excerpt: `${F}\nnot ok 1 - adds\n${F}\n~~~\ntail` }],
  ['a fence with info string inside output_excerpt', block(...TW.slice(0, 7), `  ${F}ts`, '  const x = 1', `  ${F}`), { output_excerpt: `${F}ts\nconst x = 1\n${F}` }],
  ['a four-backtick outer fence', ['````tdd-result', ...TW.slice(0, 7), F, 'raw', F, '````'].join('\n').replace(/\n```\nraw\n```/, '\n  ```\n  raw\n  ```'), { output_excerpt: `${F}\nraw\n${F}` }],
  ['a tilde fence', ['~~~tdd-result', ...IMPL, '~~~'].join('\n'), { role: 'implementer' }],
  ['other code fences around it', `${F}ts\nconst a = 1;\n${F}\n\n${block(...IMPL)}\n\n${F}\nmore\n${F}`, { role: 'implementer' }],
  ['an example block quoted inside a markdown fence does not count', `Format:\n\n${'````'}markdown\n${block('role: planner', 'status: ok')}\n${'````'}\n\n${block(...IMPL)}`, { role: 'implementer' }],
  ['status blocked with notes and no command', block('role: implementer', 'status: blocked', 'notes: the stub signature contradicts the test'), { status: 'blocked', notes: 'the stub signature contradicts the test' }],
  ['status failed still carries its proof', block('role: implementer', 'status: failed', ...IMPL.slice(2)), { status: 'failed' }],
  ['a blank line and comment lines inside the block', block('# result', 'role: implementer', '', ...IMPL.slice(1)), { role: 'implementer' }],
  ['a folded notes scalar is one line', block(...IMPL, 'notes: >', '  two', '  lines'), { notes: 'two lines' }],
  ['an indented block (inside a list item)', ['  ```tdd-result', ...IMPL.map((l) => `  ${l}`), '  ```'].join('\n'), { role: 'implementer', output_excerpt: '1 passed' }],
];

type Invalid = [name: string, message: string, code: BlockErrorCode, mentions: string, opts?: Expect];

const invalid: Invalid[] = [
  ['no block at all', 'Done! All tests pass.', 'no-block', 'no ```tdd-result'],
  ['a yaml block, not a tdd-result one', `${F}yaml\n${IMPL.join('\n')}\n${F}`, 'no-block', 'no ```tdd-result'],
  ['two blocks', `${block(...IMPL)}\n\n${block(...IMPL)}`, 'two-blocks', '2 tdd-result blocks'],
  ['an unclosed block', `${F}tdd-result\n${IMPL.join('\n')}\n`, 'unclosed', 'never closed'],
  ['an unknown role', block('role: reviewer', 'status: ok'), 'invalid', 'role: must be one of'],
  ['the wrong role for the invocation', block(...IMPL), 'wrong-role', 'invoked as test-writer', { role: 'test-writer' }],
  ['the wrong AC for the invocation', block(...TW), 'wrong-ac', 'invoked for AC-2', { role: 'test-writer', ac: 'AC-2' }],
  ['a missing role', block('status: ok'), 'missing-field', 'role is required'],
  ['a missing status', block('role: implementer'), 'missing-field', 'status is required'],
  ['an invalid status', block('role: implementer', 'status: done', ...IMPL.slice(2)), 'invalid', 'status: must be one of ok, failed, blocked'],
  ['a test-writer without command', block(...TW.filter((l) => !l.startsWith('command'))), 'missing-field', 'command is required'],
  ['a test-writer without output_excerpt', block(...TW.slice(0, 6)), 'missing-field', 'output_excerpt is required'],
  ['an implementer with no files', block('role: implementer', 'status: ok', 'files: []', ...IMPL.slice(3)), 'missing-field', 'files is required'],
  ['an implementer without refactor_needed', block(...IMPL.slice(0, -1)), 'missing-field', 'refactor_needed is required'],
  ['refactor_needed true without reasons', block(...IMPL.slice(0, -1), 'refactor_needed: true'), 'missing-field', 'refactor_reasons is required'],
  ['refactor_needed not a boolean', block(...IMPL.slice(0, -1), 'refactor_needed: maybe'), 'invalid', 'refactor_needed: must be true or false'],
  ['a validator without verdict', block('role: test-validator', 'status: ok'), 'missing-field', 'verdict is required'],
  ['an invalid verdict', block('role: test-validator', 'status: ok', 'verdict: LGTM'), 'invalid', 'verdict: must be one of PASS'],
  ['a verdict from the implementer', block(...IMPL, 'verdict: PASS'), 'invalid', 'verdict is only reported by the test-validator'],
  ['refactor_needed from the test-writer', block(...TW, 'refactor_needed: false'), 'invalid', 'only reported by the implementer'],
  ['blocked without notes', block('role: implementer', 'status: blocked'), 'missing-field', 'notes is required'],
  ['an unknown key (typo)', block(...IMPL, 'comand: x'), 'invalid', 'unknown key "comand"'],
  ['a duplicate key', block(...IMPL, 'status: failed'), 'syntax', 'duplicate key "status"'],
  ['a stray indented line', block('role: implementer', '   status: ok'), 'syntax', 'unexpected indentation'],
  ['not a key: value line', block('role: implementer', 'just prose here'), 'syntax', 'expected "key: value"'],
  ['a malformed AC', block(...TW.map((l) => (l === 'ac: AC-1' ? 'ac: first' : l))), 'invalid', 'ac: must look like AC-1'],
  ['multi-line notes', block(...IMPL, 'notes: |', '  one', '  two'), 'invalid', 'notes: must be one line'],
  ['broken quoting', block('role: "implementer', 'status: ok'), 'syntax', 'broken quoting'],
  ['a files scalar instead of a list', block('role: implementer', 'status: ok', 'files: src/a.ts', ...IMPL.slice(3)), 'invalid', 'files: must be a list'],
];

describe('tdd-result parser: valid shapes', () => {
  it.each(valid)('accepts %s', (_name, message, expected, opts) => {
    const r = parseResult(message, opts);
    if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
    expect(r.result).toMatchObject(expected);
    expect(r.result.raw).toMatch(/^\s*(`{3,}|~{3})tdd-result/);
  });
});

describe('tdd-result parser: invalid shapes', () => {
  it.each(invalid)('rejects %s', (_name, message, code, mentions, opts) => {
    const r = parseResult(message, opts);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe(code);
    expect(r.message).toContain(mentions);
  });
});

describe('YAML subset', () => {
  it('keeps block-scalar indentation beyond the first line and drops trailing blank lines', () => {
    const r = parseYamlSubset('output_excerpt: |\n  a\n    b\n\n  c\n\n\nnotes: x');
    expect(r).toEqual({ ok: true, value: { output_excerpt: 'a\n  b\n\nc', notes: 'x' } });
  });
  it('reads an empty key as an empty value', () => {
    expect(parseYamlSubset('files:\nnotes: x')).toEqual({ ok: true, value: { files: '', notes: 'x' } });
  });
  it('reports the line of a syntax error', () => {
    expect(parseYamlSubset('a: 1\nb [x')).toMatchObject({ ok: false, line: 2 });
  });
});
