import { isAbsolute, relative, sep } from 'node:path';
import { pySealSource } from './seal.js';
import type { Counts, RunFacts, TestCase, TestStatus } from './report.js';

/**
 * pytest by its own hooks, through a plugin of tdd-gate's own. Every pytest run gets it with `-p`,
 * from a fresh read-only directory outside the project put first on PYTHONPATH: pytest imports it
 * before any conftest, test module or source. As it is imported, in the process that runs the
 * session (never in a pytest-xdist worker, which sets PYTEST_XDIST_WORKER before it imports
 * plugins), it begins the run's sealed report (seal.ts): it reads the run's key and deletes its
 * file. Then it writes one record per test (its node id, each phase's outcome as pytest reported
 * it and as the plugin's own outermost hook wrappers saw it raise, the failure's message and long
 * report), one per collection error, one when the session finishes, and it ends the report when
 * pytest unconfigures, after the last test and after its check of the assertion machinery
 * (canary.ts). That sealed report is the evidence; pytest's printed summary is for people.
 *
 * A process that ends early (`os._exit` in a source, a kill) leaves no end; a report written by
 * anything else breaks the chain; an interpreter that cannot import the plugin (`python -I` or
 * `-E` ignore PYTHONPATH) leaves none, and such a run is refused with what to change.
 *
 * What each phase raised is taken from the exception itself, not from the report pytest builds
 * from it: a source that rewrites pytest's reports (its report class reached through a name built
 * at run time) turns the printed summary and the reports alike, not what was raised. Under
 * pytest-xdist the controller sees each test only through the reports its workers send.
 */
export const PYTEST_PLUGIN_MODULE = 'tdd_gate_pytest_outcomes';

/** The RunFacts source of a pytest run read from the plugin's report. */
export const PYTEST_SOURCE = 'pytest';

/**
 * The plugin. The report and key paths are baked in (no environment to find them by); what it
 * writes with is bound as it loads, before any project code runs. `after(fn)` and `atEnd(fn)`
 * let code appended to the module (the canary) run after each test's call and before the end.
 */
export function pytestPluginSource(out: string, keyFile: string): string {
  return `"""tdd-gate: pytest's tests as its own hooks saw them, in a sealed report."""
import hashlib as _hashlib
import hmac as _hmac
import json as _json
import os as _os
import unittest as _unittest

import pytest as _pytest
${pySealSource(keyFile, out)}

_write = _os.write
_dumps = _json.dumps
_str = str
_SKIP = (_pytest.skip.Exception, _pytest.xfail.Exception, _unittest.SkipTest)
_seal = _TddGateSeal()
# The process that runs the session reports; an xdist worker only runs tests for it.
_CONTROLLER = not _os.environ.get("PYTEST_XDIST_WORKER")
if _CONTROLLER:
    _seal.begin(_dumps({"tddGatePytest": 1, "pid": _os.getpid()}))
_seen = {}
_tests = {}
_after_call = []
_at_end = []
_state = {"session": False, "ended": False}


def _record(obj):
    _seal.record(_dumps(obj, separators=(",", ":"), ensure_ascii=True))


def _watch(item, when):
    outcome = yield
    status = "passed"
    try:
        outcome.get_result()
    except _SKIP:
        status = "skipped"
    except BaseException:
        status = "failed"
    _seen.setdefault(item.nodeid, {})[when] = status
    if when == "call":
        for fn in _after_call:
            try:
                fn()
            except Exception:
                pass


@_pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_setup(item):
    yield from _watch(item, "setup")


@_pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_call(item):
    yield from _watch(item, "call")


@_pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    yield from _watch(item, "teardown")


def _failure(report):
    longrepr = getattr(report, "longrepr", None)
    crash = getattr(longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    try:
        trace = _str(longrepr) if longrepr is not None else ""
    except Exception:
        trace = ""
    if not isinstance(message, _str):
        message = trace.strip().split("\\n")[-1] if trace else ""
    return message[:4000], trace[-8000:]


def _outcome(report):
    if getattr(report, "failed", False):
        return "failed"
    if getattr(report, "skipped", False):
        return "skipped"
    return "passed"


@_pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    if not _CONTROLLER:
        return
    nodeid = _str(report.nodeid)
    when = _str(report.when)
    if when == "setup" or nodeid not in _tests:
        # A setup starts an attempt (a rerun plugin runs a test again).
        location = getattr(report, "location", None) or (None, None, None)
        _tests[nodeid] = {"k": "test", "nodeid": nodeid, "file": location[0], "line": (location[1] + 1) if isinstance(location[1], int) else None, "report": {}, "seen": {}, "fails": []}
    t = _tests[nodeid]
    t["report"][when] = _outcome(report)
    if hasattr(report, "wasxfail"):
        t["xfail"] = True
    seen = _seen.get(nodeid, {}).pop(when, None)
    if seen is not None:
        t["seen"][when] = seen
    if t["report"][when] == "failed":
        message, trace = _failure(report)
        t["fails"].append({"when": when, "message": message, "trace": trace})
    if when == "teardown":
        _record(_tests.pop(nodeid))


@_pytest.hookimpl(tryfirst=True)
def pytest_collectreport(report):
    if not _CONTROLLER or not getattr(report, "failed", False):
        return
    message, trace = _failure(report)
    _record({"k": "collect", "nodeid": _str(report.nodeid), "message": message, "trace": trace})


@_pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if not _CONTROLLER:
        return
    # Tests whose teardown never reported (the session stopped inside them): what they did report.
    for t in list(_tests.values()):
        t["cut"] = True
        _record(t)
    _tests.clear()
    _state["session"] = True
    # pytest names tests from its rootdir: where that is below the folder the gate ran the command
    # in ("cd backend && pytest"), the gate puts the folder in front of each node id.
    config = getattr(session, "config", None)
    rootdir = getattr(config, "rootpath", None) or getattr(config, "rootdir", None)
    _record({"k": "session", "exitstatus": int(exitstatus), "rootdir": _str(rootdir) if rootdir is not None else None})


@_pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    for fn in _at_end:
        try:
            fn(config)
        except BaseException:
            pass
    if _CONTROLLER and not _state["ended"]:
        _state["ended"] = True
        _seal.end(_dumps({"session": _state["session"]}))
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

/** The files a classname may name, longest module path first (`a.b.TestC` → a/b/TestC.py, a/b.py, a.py). */
function classnameFiles(classname: string): string[] {
  if (!classname) return [];
  const parts = classname.split('.');
  const out: string[] = [];
  for (let i = parts.length; i > 0; i--) out.push(`${parts.slice(0, i).join('/')}.py`);
  return out;
}

type Phases = Partial<Record<'setup' | 'call' | 'teardown', string>>;

interface PluginRecord {
  k?: unknown;
  tddGatePytest?: unknown;
  nodeid?: unknown;
  report?: Phases;
  seen?: Phases;
  xfail?: unknown;
  cut?: unknown;
  fails?: { when?: unknown; message?: unknown; trace?: unknown }[];
  message?: unknown;
  trace?: unknown;
  exitstatus?: unknown;
  rootdir?: unknown;
}

/**
 * A test's status from its phases: one that failed fails it, a skipped one skips it; a setup that
 * passed without a call that ended (the session stopped inside the test) fails it. null: no phase.
 */
function statusOf(phases: Phases | undefined): TestStatus | null {
  const values = Object.values(phases ?? {});
  if (values.length === 0) return null;
  if (values.includes('failed')) return 'failed';
  if (values.includes('skipped')) return 'skipped';
  if (phases?.call === undefined) return 'failed';
  return 'passed';
}

/** pytest's exit statuses that say the session did not run its tests through. */
const BROKEN_SESSION: Record<number, string> = { 2: 'was interrupted', 3: 'hit an internal error', 4: 'stopped on a usage error' };

/** What the plugin's sealed report says of the run: the facts, and each test as its hook wrappers saw it raise. */
export interface PytestReport {
  facts: RunFacts;
  /** Each test's status from what its phases raised, keyed by junit address (`observed` of the judge); null when the report could not be read. */
  observed: Map<string, TestStatus> | null;
}

const NO_SESSION = 'pytest never ran its session (it stopped on its command line or configuration, or the process ended before the tests ran), so nothing shows the tests ran';

/**
 * The plugin's sealed report (the bodies of its records, one JSON object a line) as RunFacts.
 * `text` null: there is no report to trust (the seal did not hold, the plugin never loaded).
 * Counts as pytest's junit report counted them: `total` the tests that ran, skipped ones apart.
 */
/**
 * The folder pytest's rootdir is in, below `root` (the folder the gate ran the command from), as
 * a prefix for node ids: '' when it is `root` itself, outside it, or not known.
 */
function rootdirPrefix(records: readonly PluginRecord[], root: string | undefined): string {
  const rootdir = records.find((r) => r.k === 'session')?.rootdir;
  if (root === undefined || typeof rootdir !== 'string' || rootdir === '') return '';
  const rel = relative(root, rootdir).split(sep).join('/');
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? '' : rel;
}

export function parsePytestReport(text: string | null, root?: string): PytestReport {
  const counts: Required<Counts> = { total: 0, passed: 0, failed: 0, skipped: 0 };
  const facts: RunFacts = { counts: null, failingFiles: [], loadErrorFiles: [], messages: [], source: PYTEST_SOURCE, tests: [] };
  if (text === null) {
    facts.unfinished = `tdd-gate's pytest plugin left no report it can trust: ${NO_SESSION}`;
    return { facts, observed: null };
  }
  const observed = new Map<string, TestStatus>();
  const byId = new Map<string, TestCase>();
  let session = false;
  let exitstatus = 0;
  const records: PluginRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const r = JSON.parse(line) as PluginRecord;
      if (typeof r === 'object' && r !== null) records.push(r);
    } catch {
      // not a record
    }
  }
  const under = rootdirPrefix(records, root);
  for (const r of records) {
    if (under !== '' && typeof r.nodeid === 'string') r.nodeid = `${under}/${r.nodeid}`;
    if (r.k === 'session') {
      session = true;
      if (typeof r.exitstatus === 'number') exitstatus = r.exitstatus;
    }
    if (r.k === 'collect' && typeof r.nodeid === 'string') {
      const file = r.nodeid.split('::')[0] ?? r.nodeid;
      if (file !== '') facts.loadErrorFiles.push(file);
      facts.messages.push([r.message, r.trace].filter((x): x is string => typeof x === 'string' && x !== '').join('\n'));
      continue;
    }
    if (r.k !== 'test' || typeof r.nodeid !== 'string') continue;
    const reported = statusOf(r.report);
    if (reported === null) continue;
    const a = junitAddress(r.nodeid);
    const path = r.nodeid.split('::')[0] ?? '';
    const candidates = [...new Set([path, ...classnameFiles(a.classname)].filter((c) => c.endsWith('.py')))];
    const test: TestCase = { file: null, candidates, scope: a.classname, name: a.name, status: reported, message: '' };
    if (reported === 'failed') {
      const fails = Array.isArray(r.fails) ? [...r.fails] : [];
      if (fails.length === 0) fails.push({ when: 'call', message: 'the test never finished: the session stopped inside it', trace: '' });
      const call = fails.find((f) => f.when === 'call');
      const first = call ?? fails[0];
      const message = typeof first?.message === 'string' ? first.message : '';
      // An error outside the test body (a fixture) is not the test's assertion.
      test.message = call ? message : `error in setup or teardown: ${message}`;
      test.trace = fails.map((f) => (typeof f.trace === 'string' ? f.trace : '')).join('\n').slice(-8000);
      facts.messages.push(`${message}\n${test.trace}`);
    }
    // A rerun of the same test replaces the attempt before it.
    byId.set(r.nodeid, test);
    observed.set(key(a.classname, a.name), statusOf(r.seen) ?? reported);
  }
  const tests = [...byId.values()];
  for (const t of tests) {
    if (t.status === 'skipped') counts.skipped++;
    else {
      counts.total++;
      if (t.status === 'failed') {
        counts.failed++;
        facts.failingFiles.push(...(t.candidates ?? []).slice(0, 1));
      } else counts.passed++;
    }
  }
  facts.tests = tests;
  facts.failingFiles = [...new Set(facts.failingFiles)];
  facts.loadErrorFiles = [...new Set(facts.loadErrorFiles)];
  if (!session) {
    facts.unfinished = NO_SESSION;
    return { facts, observed };
  }
  const broken = BROKEN_SESSION[exitstatus];
  if (broken !== undefined) {
    facts.unfinished = `pytest's session ${broken} (exit status ${exitstatus}), so the tests after that point never ran`;
    return { facts, observed };
  }
  facts.counts = counts;
  return { facts, observed };
}

/** The refusal for a pytest run the gate's plugin cannot load into (`python -I`/`-E` ignore PYTHONPATH). */
export function unreachedPytest(): RunFacts {
  return {
    counts: null,
    failingFiles: [],
    loadErrorFiles: [],
    messages: [],
    source: PYTEST_SOURCE,
    tests: [],
    unfinished:
      'test_command starts Python with -I or -E, which ignore PYTHONPATH, so tdd-gate’s pytest plugin (loaded with -p from a folder it puts on PYTHONPATH) cannot load and the run leaves no report it can trust; drop -I/-E from test_command in .tdd/stack.json (`python3 -m pytest …`)',
  };
}

/** What the plugin saw raised for one reported test (by its junit-style address: classname, then name). */
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
 * Why pytest's reports and what the plugin saw raised disagree (null when they agree): a test
 * pytest reported passed that its phases' hooks saw fail, skip, or never run. `ids` are the tests'
 * ids, in the report's order.
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
