import { describe, it } from 'vitest';
import { project } from '../cli/fixtures.js';
import { heldoutCycle } from './fixtures.js';

const HEADER = "import { expect, test } from 'vitest';\nimport { add } from '../src/add.js';\n";

describe('held-out tests with vitest', () => {
  it('refuses a special-cased GREEN by the held-out name and assertion only, accepts the genuine one, brings the file back at done', { timeout: 180_000 }, () => {
    heldoutCycle({
      name: 'vitest',
      make: () => project('vitest', {}, { heldout: 'required' }),
      visible: ['tests/add.test.ts', `${HEADER}test('adds two numbers', () => { expect(add(1, 2)).toBe(3); });\n`],
      heldout: ['tests/add.heldout.test.ts', `${HEADER}test('adds negative numbers', () => {\n  expect(add(-4, 10)).toBe(6);\n});\ntest('adds zero', () => { expect(add(0, 0)).toBe(0); });\n`],
      source: 'src/add.ts',
      stub: '// STUB:TDD\nexport function add(_a: number, _b: number): number { return -1; }\n',
      special: 'export function add(a: number, b: number): number { return a === 1 && b === 2 ? 3 : -1; }\n',
      genuine: 'export function add(a: number, b: number): number { return a + b; }\n',
      heldoutName: /held-out test "adds negative numbers"/,
      assertion: /expected -1 to be 6/,
      secret: ['add(-4, 10)', 'toBe(6)'],
    });
  });
});
