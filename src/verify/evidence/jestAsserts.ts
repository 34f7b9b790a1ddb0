import { testBlock, type IdentifiedTest } from './identity.js';
import type { TestCase } from './report.js';

/**
 * jest counts the expect() calls that passed in each test (`numPassingAsserts`). A test whose
 * declaration calls expect() but that passed with none passing did not run as written: its body
 * was swapped (a source that wraps the global `test` in an empty one). Tests whose declaration
 * cannot be found (names built at run time) are not judged, nor is `test.failing`, which passes
 * when its expect() fails. `cases` and `tests` are the same tests, in the same order.
 */
export function unassertedTests(cases: readonly TestCase[], tests: readonly IdentifiedTest[], read: (rel: string) => string | null): string[] {
  const out: string[] = [];
  const texts = new Map<string, string | null>();
  cases.forEach((c, k) => {
    const t = tests[k];
    if (!t || c.passingAsserts !== 0 || t.status !== 'passed' || t.file === null) return;
    if (!texts.has(t.file)) texts.set(t.file, read(t.file));
    const block = t.decl?.block ?? testBlock(texts.get(t.file) ?? '', t.leaf);
    if (block !== null && /\bexpect\s*\(/.test(block) && !/\.failing\s*\(/.test(block.split('\n')[0] ?? '')) out.push(t.id);
  });
  return out;
}
