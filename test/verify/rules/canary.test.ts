import { describe, expect, it } from 'vitest';
import { canaryProblem, parseCanary } from '../../../src/verify/rules/canary.js';
import { importPreloadSupported, jsCanaryOption, pyCanarySource } from '../../../src/verify/canary.js';

const line = (o: Record<string, unknown>) => JSON.stringify({ tddGateCanary: 1, pid: 1, argv: [], worker: true, failures: [], ...o });

describe('the canary’s lines, judged', () => {
  it('parses lines, skipping a torn one and foreign text', () => {
    expect(parseCanary(`${line({ pid: 7 })}\nnoise\n{"tddGateCanary":1,"pid":8,"fail`)).toEqual([{ pid: 7, argv: [], worker: true, failures: [] }]);
  });
  it.each([
    ['a failure is named', 'vitest-json', [line({ failures: ['Object.is was replaced'] })], [], /the assertion library was changed at run time: Object\.is was replaced/],
    ['no line at all', 'mocha', [], [], /did not report/],
    ['only the runner’s own process reported (vitest)', 'vitest-json', [line({ worker: false })], [], /did not report/],
    ['a worker reported', 'jest-json', [line({ worker: false }), line({})], [], null],
    ['node:test: each file’s process reported', 'node-test', [line({ argv: ['/p/test/a.test.js'] }), line({ argv: ['/p/test/b.test.js'] })], ['/p/test/a.test.js', '/p/test/b.test.js'], null],
    ['node:test: one file’s process did not', 'node-test', [line({ argv: ['/p/test/a.test.js'] })], ['/p/test/a.test.js', '/p/test/b.test.js'], /did not report .*: \/p\/test\/b\.test\.js/],
    ['node:test: every test in the runner’s process (no isolation)', 'node-test', [line({ worker: false })], ['/p/test/a.test.js'], null],
    ['pytest: the plugin’s process reported', 'pytest', [line({ alwaysEqual: [] })], [], null],
    ['pytest: no line', 'pytest', [], [], /did not report/],
    [
      'pytest: a class whose == is always true is named with its file, and how to allow it',
      'pytest',
      [line({ alwaysEqual: [{ class: 'Total', file: 'src/cart.py', how: "its instances' ==" }, { class: 'Meta.X', file: 'src/m.py', how: "the class's own != (its metaclass)" }] })],
      [],
      /equality that is always true: class Total in src\/cart\.py \(its instances' == is always true\), class Meta\.X in src\/m\.py \(the class's own != \(its metaclass\) is always false\).*`src\/cart\.py#always-equal` in runner_reach_allow/,
    ],
    ['pytest: the equality comes before a changed assertion library', 'pytest', [line({ failures: ['operator.eq was replaced'], alwaysEqual: [{ class: 'A', file: 'src/a.py', how: "its instances' ==" }] })], [], /class A in src\/a\.py/],
    // go test's lines are judged with its events (evidence/goJson.ts), not here
    ['go test: judged with its events', 'go-json', [], [], null],
    ['go test: a finding is judged with its events', 'go-json', [line({ go: 1, failures: ['os.Stdout is no longer file descriptor 1'] })], [], null],
  ])('%s', (_n, kind, lines, files, want) => {
    const why = canaryProblem(kind, parseCanary(lines.join('\n')), files);
    if (want === null) expect(why).toBeNull();
    else expect(why).toMatch(want);
  });
});

describe('the canary modules', () => {
  it('preloads through NODE_OPTIONS as one word, where node takes --import', () => {
    expect(jsCanaryOption('/tmp/x')).toMatch(/^--import=data:text\/javascript;base64,[A-Za-z0-9+/=]+$/);
    expect([importPreloadSupported('v18.18.0'), importPreloadSupported('v18.19.0'), importPreloadSupported('v20.5.1'), importPreloadSupported('v20.6.0'), importPreloadSupported('v22.1.0')]).toEqual([false, true, false, true, true]);
  });
  it('the Python half runs at the plugin’s end, and after each test’s call for the equality check', () => {
    const src = pyCanarySource('/tmp/x', ['src/a.py']);
    expect(src).toMatch(/_at_end\.append\(_tdd_canary_end\)/);
    expect(src).toMatch(/_after_call\.append\(_eq_scan_after_call\)/);
    expect(src).toContain('["src/a.py"]');
  });
});
