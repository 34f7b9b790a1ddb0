// The RED stub marker counts only as a comment at the stubbed function (src/tamper/rules/stubMarker.ts).
import { describe, expect, it } from 'vitest';
import { stubMarked } from '../../src/tamper/rules/stubMarker.js';

describe('STUB:TDD as a comment at the stubbed function', () => {
  it.each<[string, string, boolean]>([
    ['JS line comment above a function', '// STUB:TDD\nexport function add(a, b) { return 0; }\n', true],
    ['JS trailing comment on the function line', 'export function add() { return 0; } // STUB:TDD\n', true],
    ['JS arrow function', '/* STUB:TDD */\nexport const add = (a, b) => 0;\n', true],
    ['TS method inside a class', 'class A {\n  // STUB:TDD\n  add(a: number): number {\n    return 0;\n  }\n}\n', true],
    ['Python comment in the body', 'def add(a, b):\n    # STUB:TDD\n    return 0\n', true],
    ['Python comment above', '# STUB:TDD\ndef add(a, b):\n    return 0\n', true],
    ['Go', '// STUB:TDD\nfunc Add(a, b int) int {\n\treturn 0\n}\n', true],
    ['Rust', '// STUB:TDD\npub fn add(a: i32, b: i32) -> i32 {\n    0\n}\n', true],
    ['Java', '// STUB:TDD\npublic static int add(int a, int b) {\n  return 0;\n}\n', true],
    ['JSDoc block line', '/**\n * STUB:TDD\n */\nexport function add() { return 0; }\n', true],
    ['in a string', 'const marker = "STUB:TDD";\nexport function add(a, b) { return a + b; }\n', false],
    ['in a template string', 'export function add(a, b) { console.log(`STUB:TDD`); return a + b; }\n', false],
    ['in a Python string', 'NOTE = "STUB:TDD"\ndef add(a, b):\n    return a + b\n', false],
    ['in an identifier-like word outside a comment', 'export const STUB_TDD = 1; export function add(a, b) { return a + b; } const x = STUB:TDD;\n', false],
    ['a comment far from any function', '// STUB:TDD\n\n\n\n\n\nconst x = 1;\nexport { x };\n', false],
    ['a stubbed constant', '// STUB:TDD\nexport const b = 1;\n', true],
    ['a stubbed class', '# STUB:TDD\nclass Cart:\n    pass\n', true],
    ['a notebook cell', JSON.stringify({ cells: [{ cell_type: 'code', source: ['# STUB:TDD\n', 'x = 1'] }] }), true],
    ['a notebook with the marker in a markdown string only', JSON.stringify({ cells: [{ cell_type: 'code', source: ['s = "STUB:TDD"\n', 'y = 2'] }] }), false],
    ['a placeholder file with nothing but the marker', '// STUB:TDD\n', true],
    ['no marker', 'export function add(a, b) { return a + b; }\n', false],
  ])('%s', (_name, text, marked) => {
    expect(stubMarked(text)).toBe(marked);
  });
});
