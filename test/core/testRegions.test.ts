import { describe, expect, it } from 'vitest';
import { maskRustTestRegions, onlyRustTestRegionsChange, rustDocExamples, rustTestRegions } from '../../src/verify/rules/testRegions.js';

describe('Rust test regions: every item that exists only under test', () => {
  it.each([
    ['an inline test module', 'pub fn a() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n', ['#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}']],
    ['a #[test] fn at the top of the file', 'pub fn a() {}\n\n#[test]\nfn t() {\n    assert!(true);\n}\n', ['#[test]\nfn t() {\n    assert!(true);\n}']],
    ['#[should_panic] above #[test] belongs to it', 'pub fn a() {}\n#[should_panic]\n#[test]\nfn t() { a() }\n', ['#[should_panic]\n#[test]\nfn t() { a() }']],
    ['#[tokio::test]', '#[tokio::test]\nasync fn t() {}\n', ['#[tokio::test]\nasync fn t() {}']],
    ['a #[cfg(test)] use and test data', '#[cfg(test)]\nuse alloc::vec;\npub fn a() {}\n#[cfg(test)]\nstatic S: &[(&str, Option<&[&str]>)] = &[("{", None), ("\\"}", Some(&["x"]))];\n', ['#[cfg(test)]\nuse alloc::vec;', '#[cfg(test)]\nstatic S: &[(&str, Option<&[&str]>)] = &[("{", None), ("\\"}", Some(&["x"]))];']],
    ['braces in char literals, raw strings and comments', "#[test]\nfn t() {\n    let c = '{';\n    let r = r#\"}\"#;\n    // }\n    let _: &'static str = \"\";\n}\npub fn a() {}\n", ["#[test]\nfn t() {\n    let c = '{';\n    let r = r#\"}\"#;\n    // }\n    let _: &'static str = \"\";\n}"]],
    ['#[cfg(all(test, feature))]', '#[cfg(all(test, feature = "x"))]\nfn helper() {}\n', ['#[cfg(all(test, feature = "x"))]\nfn helper() {}']],
    ['not in a comment', '// #[test]\npub fn a() {}\n', []],
  ])('%s', (_name, src, regions) => {
    expect(rustTestRegions(src)).toBe(regions.length > 0 ? regions.join('\n') : null);
    expect(maskRustTestRegions(src).split('\n').length).toBe(src.split('\n').length);
  });

  it('a new test function (and the blank line before it) is a test-only change; production code is not', () => {
    const src = 'pub fn a() -> i32 { 1 }\n\n#[test]\nfn t() { assert_eq!(a(), 1); }\n';
    expect(onlyRustTestRegionsChange(src, src + '\n#[test]\nfn u() { assert_eq!(a(), 2); }\n')).toBe(true);
    expect(onlyRustTestRegionsChange(src, src.replace('{ 1 }', '{ 2 }'))).toBe(false);
    expect(onlyRustTestRegionsChange(src, src.replace('{ 1 }', '{ 2 }') + '\n#[test]\nfn u() {}\n')).toBe(false);
  });
});

describe('Rust doc examples (doc tests), by item', () => {
  it('names each example by the item it documents', () => {
    const src = [
      '//! ```',
      '//! assert!(true);',
      '//! ```',
      '',
      '/// Adds.',
      '///',
      '/// ```',
      '/// assert_eq!(c::add(1, 2), 3);',
      '/// ```',
      '// STUB:TDD',
      '#[inline]',
      'pub fn add(a: i32, b: i32) -> i32 { a + b }',
      '',
      '/// No example here.',
      'pub fn sub() {}',
      '',
      'impl A {',
      '    /// ```',
      '    /// A::new();',
      '    /// ```',
      '    pub fn new() -> A { A }',
      '}',
      'impl B {',
      '    /// ```',
      '    /// B::new();',
      '    /// ```',
      '    pub const fn new() -> B { B }',
      '}',
    ].join('\n');
    expect(rustDocExamples(src)).toEqual({
      crate: '```\nassert!(true);\n```',
      add: '```\nassert_eq!(c::add(1, 2), 3);\n```',
      new: '```\nA::new();\n```',
      'new#2': '```\nB::new();\n```',
    });
  });
});
