import { describe, expect, it } from 'vitest';
import { readSpecFacts, specEntryProblem } from '../../src/cli/spec.js';
import { detectStack } from '../../src/cli/stackDetect.js';
import { stackSchema } from '../../src/schema/stack.js';

describe('C1 entry gate', () => {
  it.each([
    ['# S\n#### Scenario: a\n- THEN 1\n', null],
    ['---\nstatus: active\nid: SPEC-9\n---\n#### Scenario: a\n- THEN 1\n', null],
    ['# S\n#### Scenario: a\n', /scenario "a" has no THEN step/],
    ['# S\n### Scenario: a\n', /no `#### Scenario` heading/],
    ['---\nstatus: draft\n---\n#### Scenario: a\n', /status "draft"/],
  ])('%j', (text, problem) => {
    const p = specEntryProblem(readSpecFacts(text), 'specs/S.md');
    if (problem === null) expect(p).toBeNull();
    else expect(p).toMatch(problem);
  });
  it('reads the id from front matter', () => {
    expect(readSpecFacts('---\r\nid: "SPEC-9"\r\n---\r\n').id).toBe('SPEC-9');
  });
});

describe('stack detect', () => {
  const facts = (files: string[], pkg: unknown = null) => ({
    has: (rel: string) => files.includes(rel),
    packageJson: pkg === null ? null : JSON.stringify(pkg),
    anyFile: (re: RegExp) => files.some((f) => re.test(f)),
  });
  it.each([
    ['vitest', facts(['package.json', 'tsconfig.json'], { devDependencies: { vitest: '1' } }), 'npx vitest run'],
    ['jest', facts(['package.json'], { devDependencies: { jest: '1' } }), 'npx jest'],
    ['node:test', facts(['package.json'], { scripts: { test: 'node --test' } }), 'node --test'],
    ['pytest', facts(['pyproject.toml']), 'python -m pytest'],
    ['go', facts(['go.mod']), 'go test ./...'],
    ['cargo', facts(['Cargo.toml']), 'cargo test'],
  ])('%s', (_n, f, command) => {
    const found = detectStack(f);
    expect(found?.stack.test_command).toBe(command);
    // every generated stack must pass our own strict schema and compile its regexes
    expect(stackSchema.safeParse(found!.stack).success).toBe(true);
    expect(() => new RegExp(found!.stack.red_confirm)).not.toThrow();
    expect(() => new RegExp(found!.stack.build_error_pattern!)).not.toThrow();
  });
  it('finds nothing in an empty project', () => {
    expect(detectStack(facts([]))).toBeNull();
  });
});
