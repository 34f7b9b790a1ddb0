import type { TestCase, TestStatus } from './report.js';

/**
 * pytest by what its own hooks saw. Every pytest run gets one more plugin, loaded with `-p` from a
 * fresh read-only directory outside the project (put first on PYTHONPATH) before any project code
 * is imported. Its hook wrappers sit outermost around each test's setup, call and teardown and
 * write, as each phase ends, whether the phase raised (and whether what it raised was a skip) —
 * from the exception itself, not from the report pytest builds from it. A source that rewrites
 * pytest's reports (its report class reached through a name built at run time, say) turns the
 * junit report and the printed summary alike; it does not change what was raised. GREEN holds
 * every test the junit report calls passed to have passed here too.
 */
export const PYTEST_PLUGIN_MODULE = 'tdd_gate_pytest_outcomes';

/**
 * The plugin. The output path is baked in (no environment to find it by); each record goes out
 * through an unbuffered descriptor opened in append mode as the phase ends, with os.write and
 * json.dumps bound before any project code runs.
 */
export function pytestPluginSource(out: string): string {
  return `"""tdd-gate: each test phase's outcome as pytest's own hooks saw it."""
import json as _json
import os as _os
import unittest as _unittest

import pytest as _pytest

_OUT = ${JSON.stringify(out)}
_write = _os.write
_dumps = _json.dumps
_fd = None
_SKIP = (_pytest.skip.Exception, _pytest.xfail.Exception, _unittest.SkipTest)


def _record(record):
    if _fd is not None:
        _write(_fd, (_dumps(record) + "\\n").encode("utf-8", "backslashreplace"))


def pytest_configure(config):
    global _fd
    if _fd is None:
        _fd = _os.open(_OUT, _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT, 0o600)
        _record({"tddGatePytest": 1, "pid": _os.getpid()})


def _watch(item, when):
    outcome = yield
    status = "passed"
    try:
        outcome.get_result()
    except _SKIP:
        status = "skipped"
    except BaseException:
        status = "failed"
    _record({"nodeid": item.nodeid, "when": when, "status": status})


@_pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_setup(item):
    yield from _watch(item, "setup")


@_pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_call(item):
    yield from _watch(item, "call")


@_pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    yield from _watch(item, "teardown")
`;
}

/**
 * The classname and name pytest's junit report gives a node id (its `mangle_test_address`): the
 * file as a dotted module, the classes, and the last part with its parameters.
 */
export function junitAddress(nodeid: string): { classname: string; name: string } {
  const bracket = nodeid.indexOf('[');
  const path = bracket === -1 ? nodeid : nodeid.slice(0, bracket);
  const params = bracket === -1 ? '' : nodeid.slice(bracket);
  const names = path.split('::');
  names[0] = (names[0] ?? '').replace(/\//g, '.').replace(/\.py$/, '');
  names[names.length - 1] += params;
  return { classname: names.slice(0, -1).join('.'), name: names[names.length - 1] ?? '' };
}

const key = (classname: string, name: string) => `${classname}\u0000${name}`;

/**
 * Each test's outcome from the plugin's records, keyed by junit address: a setup starts an attempt
 * (a rerun plugin runs a test again), a phase that failed fails it, one that skipped skips it.
 * null when the plugin never started (no header line).
 */
export function parsePytestOutcomes(text: string | null): Map<string, TestStatus> | null {
  if (text === null) return null;
  let started = false;
  const out = new Map<string, TestStatus>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let r: { tddGatePytest?: unknown; nodeid?: unknown; when?: unknown; status?: unknown };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      continue;
    }
    if (r.tddGatePytest === 1) started = true;
    if (typeof r.nodeid !== 'string' || (r.status !== 'passed' && r.status !== 'failed' && r.status !== 'skipped')) continue;
    const a = junitAddress(r.nodeid);
    const k = key(a.classname, a.name);
    const prev = r.when === 'setup' ? undefined : out.get(k);
    out.set(k, prev === 'failed' || r.status === 'failed' ? 'failed' : prev === 'skipped' || r.status === 'skipped' ? 'skipped' : 'passed');
  }
  return started ? out : null;
}

/** What the plugin saw of one junit test case (a `--junitprefix` puts a prefix before its classname). */
function seen(observed: ReadonlyMap<string, TestStatus>, t: TestCase): TestStatus | undefined {
  const exact = observed.get(key(t.scope ?? '', t.name));
  if (exact !== undefined) return exact;
  for (const [k, status] of observed) {
    const [classname = '', name] = k.split('\u0000');
    if (name === t.name && (t.scope ?? '').endsWith(`.${classname}`)) return status;
  }
  return undefined;
}

/**
 * Why the junit report and the plugin disagree (null when they agree): a test the report calls
 * passed that pytest's hooks saw fail, skip, or never run. `ids` are the tests' ids, in the
 * report's order.
 */
export function pytestDisagreement(cases: readonly TestCase[], ids: readonly string[], observed: ReadonlyMap<string, TestStatus> | null): string | null {
  if (observed === null) {
    return "pytest ran without tdd-gate's outcome plugin (it loads it with -p from outside the project), so what its report says cannot be checked; nothing in the project may disable or replace it: remove what does and verify again";
  }
  const wrong: string[] = [];
  cases.forEach((t, i) => {
    if (t.status !== 'passed') return;
    const now = seen(observed, t);
    if (now !== 'passed') wrong.push(`${ids[i] ?? t.name} ${now === undefined ? 'never ran' : now}`);
  });
  if (wrong.length === 0) return null;
  const shown = wrong.slice(0, 3).join(', ') + (wrong.length > 3 ? ` and ${wrong.length - 3} more` : '');
  return `pytest's own hooks saw ${shown}, but the runner's report says it passed (${wrong.length === 1 ? 'that test' : `${wrong.length} tests`}); something rewrites pytest's reports: remove it from the source and verify again`;
}
