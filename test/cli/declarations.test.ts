import { describe, expect, it } from 'vitest';
import { blockText, declPath, parseDecls, type DeclLang } from '../../src/verify/evidence/declarations.js';

/** Each declaration as `kind path` (titles joined with " > "), with its block. */
const decls = (text: string, lang: DeclLang) =>
  parseDecls(text, lang).all.map((d) => ({ what: `${d.kind} ${declPath(d).join(' > ')}`, block: blockText(text, d), literal: d.literal, each: d.each }));

describe('JS/TS declarations: their own block, found by parsing', () => {
  it('nests describe/it by the call, each block the whole call and nothing up to the next one', () => {
    const src = [
      "import { describe, it, test, expect } from 'vitest';",
      "describe('cart', () => {",
      "  const setup = () => ({ items: [')'] }); // not a test: it('x')",
      "  it('totals', () => {",
      "    expect(/\\)it\\(/.test('a')).toBe(false);",
      '  });',
      '',
      '  // a comment between tests',
      "  describe.skip(\"inner ' quote\", () => {",
      "    test.only('deep', async (): Promise<void> => { expect(`${'}'}`).toBe('}'); });",
      '  });',
      '});',
      "it('top', () => {});",
    ].join('\n');
    expect(decls(src, 'js').map((d) => [d.what, d.block])).toEqual([
      ['suite cart', src.slice(src.indexOf("describe('cart'"), src.indexOf("it('top'") - 1)],
      ['test cart > totals', "it('totals', () => {\n    expect(/\\)it\\(/.test('a')).toBe(false);\n  });"],
      ["suite cart > inner ' quote", "describe.skip(\"inner ' quote\", () => {\n    test.only('deep', async (): Promise<void> => { expect(`${'}'}`).toBe('}'); });\n  });"],
      ["test cart > inner ' quote > deep", "test.only('deep', async (): Promise<void> => { expect(`${'}'}`).toBe('}'); });"],
      ['test top', "it('top', () => {});"],
    ]);
  });

  it.each<[string, string, { title: string; literal: boolean; each: boolean; matches: string[]; not?: string[] }]>([
    ['a plain title', "it('adds', () => {})", { title: 'adds', literal: true, each: false, matches: ['adds'], not: ['adds 1'] }],
    ['a template with a value computed at run time', 'it(`at ${Date.now()}`, () => {})', { title: 'at ${Date.now()}', literal: false, each: false, matches: ['at 1795738997908', 'at '] }],
    ['test.each of Dates with %s', 'test.each([[new Date()], [Date.now()]])(\'%s\', (d) => {})', { title: '%s', literal: false, each: true, matches: ['Fri Nov 27 2026 00:23:22 GMT+0000', '1795739002199'] }],
    ['it.each with printf and $var', "it.each([{ a: 1 }])('adds $a and %% %i', () => {})", { title: 'adds $a and %% %i', literal: false, each: true, matches: ['adds 1 and % 2'], not: ['adds 1 and 2'] }],
    ['a tagged-template table', "test.each`\n  a | b\n  ${1} | ${2}\n`('row $a', () => {})", { title: 'row $a', literal: false, each: true, matches: ['row 1'] }],
    ['TypeScript type arguments on each', "test.each<[number, { n: number }]>([[1, { n: 2 }]])('n %i', () => {})", { title: 'n %i', literal: false, each: true, matches: ['n 1'] }],
    ['vitest test.for and concurrent.each', "test.concurrent.for([1])('c %i', () => {})", { title: 'c %i', literal: false, each: true, matches: ['c 1'] }],
    ['a title held in a variable', 'it(name, () => {})', { title: 'name', literal: false, each: false, matches: ['anything at all'] }],
    ['an escaped literal', "it('it\\'s \\u00e9', () => {})", { title: "it's é", literal: true, each: false, matches: ["it's é"] }],
  ])('%s', (_n, src, want) => {
    const [d] = parseDecls(src, 'js').all;
    expect(d).toMatchObject({ title: want.title, literal: want.literal, each: want.each });
    for (const m of want.matches) expect(d!.pattern.test(m), m).toBe(true);
    for (const m of want.not ?? []) expect(d!.pattern.test(m), m).toBe(false);
  });

  it('an each table written as an array: its rows, and the block without them', () => {
    const src = "test.each([\n  [new Date()],\n  [Date.now()],\n  [1],\n])('%s', (d) => {\n  expect(d).toBeTruthy();\n});";
    const [d] = parseDecls(src, 'js').all;
    expect(d!.rows).toEqual(['[new Date()]', '[Date.now()]', '[1]']);
    expect(d!.shell).toBe("test.each([…])('%s', (d) => {\n  expect(d).toBeTruthy();\n});");
  });

  it('repeated titles are two declarations; node:test subtests nest; look-alikes are not tests', () => {
    const src = [
      "test('same', () => {});",
      "test('same', () => {});",
      "test('parent', async (t) => {",
      "  await t.test('child', () => {});",
      "  expect(re.test('x')).toBe(true);",
      '});',
      'class A { test() { return 1; } }',
      'function it(a) { return a; }',
      "const o = { test: 1, describe: 'x' };",
      "expect(a).test('x', () => {});",
    ].join('\n');
    expect(decls(src, 'js').map((d) => d.what)).toEqual(['test same', 'test same', 'test parent', 'test parent > child']);
  });
});

describe('Python declarations by indentation', () => {
  it('classes, methods and functions with their decorators; a def inside a string is none', () => {
    const src = [
      'import pytest',
      '',
      '@pytest.mark.parametrize(',
      '    "a,b",',
      '    [(1, 2),',
      '     (3, 4)],',
      ')',
      'def test_add(a, b):',
      '    s = """',
      'def test_fake():',
      '"""',
      '    assert a < b',
      '',
      '',
      'class TestCart:',
      '    def test_total(self):',
      '        assert (1 +',
      '  2) == 3',
      '',
      '    async def test_async(self):',
      '        pass',
      '# trailing',
    ].join('\n');
    expect(decls(src, 'py').map((d) => [d.what, d.block])).toEqual([
      ['test test_add', '@pytest.mark.parametrize(\n    "a,b",\n    [(1, 2),\n     (3, 4)],\n)\ndef test_add(a, b):\n    s = """\ndef test_fake():\n"""\n    assert a < b'],
      ['suite TestCart', src.slice(src.indexOf('class TestCart'), src.indexOf('\n# trailing'))],
      ['test TestCart > test_total', '    def test_total(self):\n        assert (1 +\n  2) == 3'],
      ['test TestCart > test_async', '    async def test_async(self):\n        pass'],
    ]);
  });
});

describe('Go declarations: top-level funcs and their t.Run calls', () => {
  it('literal and computed subtest names, nested, strings with braces', () => {
    const src = [
      'package cart',
      '',
      'func TestTotal(t *testing.T) {',
      '\tt.Run("empty cart", func(t *testing.T) {',
      '\t\ts := "}"',
      '\t\tt.Run(`raw {`, func(t *testing.T) {})',
      '\t})',
      '\tfor _, tc := range cases {',
      '\t\tt.Run(tc.name, func(t *testing.T) { _ = tc })',
      '\t}',
      '}',
      '',
      'func (s *Suite) TestMethod() {}',
    ].join('\n');
    expect(decls(src, 'go').map((d) => [d.what, d.literal])).toEqual([
      ['test TestTotal', true],
      ['test TestTotal > empty cart', true],
      ['test TestTotal > empty cart > raw {', true],
      ['test TestTotal > tc.name', false],
      ['test TestMethod', true],
    ]);
    const run = parseDecls(src, 'go').all[1]!;
    expect(run.pattern.test('empty_cart')).toBe(true);
    expect(run.pattern.test('empty_cart#01')).toBe(true);
    expect(blockText(src, parseDecls(src, 'go').all[3]!)).toBe('t.Run(tc.name, func(t *testing.T) { _ = tc })');
  });
});

describe('Rust declarations: modules and fns with their attributes', () => {
  it('nests fns in inline modules; a brace in a char or raw string is not one', () => {
    const src = ['pub fn add(a: i32, b: i32) -> i32 { a + b }', '', '#[cfg(test)]', 'mod tests {', '    use super::*;', '', '    #[test]', '    #[should_panic]', "    fn panics() { let _c = '{'; let _r = r#\"}\"#; }", '', '    #[test]', '    fn adds() {', '        assert_eq!(add(1, 2), 3);', '    }', '}'].join('\n');
    expect(decls(src, 'rs').map((d) => [d.what, d.block])).toEqual([
      ['test add', 'pub fn add(a: i32, b: i32) -> i32 { a + b }'],
      ['suite tests', src.slice(src.indexOf('#[cfg(test)]'))],
      ['test tests > panics', "    #[test]\n    #[should_panic]\n    fn panics() { let _c = '{'; let _r = r#\"}\"#; }"],
      ['test tests > adds', '    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }'],
    ]);
  });
});
