/**
 * The assertion machinery, checked where it runs. Every JavaScript process a test command starts
 * (the runner, its workers, node:test's file processes) loads a small module of the gate's own
 * through NODE_OPTIONS `--import`, before any project code: it takes the comparison and assertion
 * functions the tests use as they are (`Object.is`, `node:assert` and `node:assert/strict`), locks
 * them (Object.is neither writable nor configurable, the assert modules frozen), and when the
 * process ends checks them again — by identity against the copies it took, and by behaviour: each
 * must still fail when it must (`assert.equal(1, 2)` throws an AssertionError, `Object.is(1, 2)` is
 * false, …). Whatever spelling a rebinding takes (Object.assign, Reflect.set, a computed key,
 * createRequire, defineProperties, a prototype patch), it either fails at the write or shows here.
 * Each process appends one JSON line to the run's canary file; rules/canary.ts judges them.
 *
 * pytest's plugin gets the same check in Python (pyCanarySource): AssertionError, unittest's
 * assertions and pytest's assertion rewriting as they were when the plugin loaded, and still failing.
 */

/** Node versions whose NODE_OPTIONS take `--import` (a data: module preloaded in every process): 18.19+, 20.6+, 21+. */
export function importPreloadSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major >= 21 || (major === 20 && minor >= 6) || (major === 18 && minor >= 19);
}

const ASSERT_NAMES = ['ok', 'equal', 'notEqual', 'deepEqual', 'notDeepEqual', 'strictEqual', 'notStrictEqual', 'deepStrictEqual', 'notDeepStrictEqual', 'throws', 'doesNotThrow', 'match', 'fail', 'ifError'];

function jsCanarySource(out: string): string {
  return `import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const OUT = ${JSON.stringify(out)};
const append = appendFileSync;
const stringify = JSON.stringify;
const req = createRequire(OUT);
const assert = req('node:assert');
const strict = assert.strict;
const AE = assert.AssertionError;
const is = Object.is;
const NAMES = ${JSON.stringify(ASSERT_NAMES)};
const saved = NAMES.map((n) => [n, assert[n], strict[n]]);
const env = process.env;
const on = process.on.bind(process);
try { Object.defineProperty(Object, 'is', { value: is, writable: false, configurable: false, enumerable: false }); } catch {}
try { Object.freeze(assert); Object.freeze(strict); } catch {}
function mustFail(failures, what, f) {
  let failed = false;
  try { f(); } catch (e) { failed = e instanceof AE || (e !== null && typeof e === 'object' && e.code === 'ERR_ASSERTION'); }
  if (!failed) failures.push(what + ' no longer fails');
}
function check() {
  const failures = [];
  if (Object.is !== is) failures.push('Object.is was replaced');
  if (is(1, 2) !== false || is(NaN, NaN) !== true || is(0, -0) !== false) failures.push('Object.is(1, 2) is no longer false');
  if (Object.is(1, 2) !== false) failures.push('Object.is(1, 2) is no longer false');
  if (req('node:assert') !== assert) failures.push('node:assert was replaced');
  if (req('node:assert/strict') !== strict) failures.push('node:assert/strict was replaced');
  for (const [n, a, s] of saved) {
    if (assert[n] !== a) failures.push('assert.' + n + ' was replaced');
    if (strict[n] !== s) failures.push('assert/strict ' + n + ' was replaced');
  }
  mustFail(failures, 'assert(false)', () => assert(false));
  mustFail(failures, 'assert.ok(false)', () => assert.ok(false));
  mustFail(failures, 'assert.equal(1, 2)', () => assert.equal(1, 2));
  mustFail(failures, 'assert.notEqual(1, 1)', () => assert.notEqual(1, 1));
  mustFail(failures, 'assert.strictEqual(1, 2)', () => assert.strictEqual(1, 2));
  mustFail(failures, 'assert.deepEqual({ a: 1 }, { a: 2 })', () => assert.deepEqual({ a: 1 }, { a: 2 }));
  mustFail(failures, 'assert.deepStrictEqual({ a: 1 }, { a: 2 })', () => assert.deepStrictEqual({ a: 1 }, { a: 2 }));
  mustFail(failures, 'assert/strict equal(1, 2)', () => strict.equal(1, 2));
  mustFail(failures, 'assert/strict deepEqual([1], [2])', () => strict.deepEqual([1], [2]));
  mustFail(failures, 'assert.match("a", /b/)', () => assert.match('a', /b/));
  return failures;
}
let reported = false;
function report() {
  if (reported) return;
  reported = true;
  let failures;
  try { failures = check(); } catch (e) { failures = ['the check itself threw: ' + String(e && e.message)]; }
  const worker = !!(env.VITEST_WORKER_ID || env.VITEST_POOL_ID || env.JEST_WORKER_ID || env.NODE_TEST_CONTEXT);
  try { append(OUT, stringify({ tddGateCanary: 1, pid: process.pid, argv: process.argv.slice(1).map(String), worker, failures }) + '\\n'); } catch {}
}
on('exit', report);
// A runner's pool ends its workers with SIGTERM once their tests are done (vitest's forks): the
// check runs then too, and the signal goes on as it would have (ending the process unless it has
// a handler of its own).
const onTerm = () => {
  report();
  if (process.listenerCount('SIGTERM') === 1) {
    process.removeListener('SIGTERM', onTerm);
    process.kill(process.pid, 'SIGTERM');
  }
};
on('SIGTERM', onTerm);
`;
}

/** The NODE_OPTIONS word that preloads the canary writing to `out`. */
export function jsCanaryOption(out: string): string {
  return `--import=data:text/javascript;base64,${Buffer.from(jsCanarySource(out), 'utf8').toString('base64')}`;
}

/**
 * The Python half: appended to the gate's pytest plugin (pytestOutcomes.ts), writing to `out`.
 * Besides the assertion machinery it looks for an equality that is always true among the classes
 * of the project's sources (`checked`, root-relative .py files, those a project allows left out):
 * after each test's call and at the end, each class defined there (by its module, or by where its
 * `__eq__`/`__ne__` is written) that it has not judged yet is tried by its behaviour — an instance
 * made without `__init__`, and the class itself (its metaclass), compared with objects it cannot
 * know (a bare `object()`, an instance of a class of the gate's, a float, a string). Equal to every
 * one of them (or unequal to none) is equality that is always true, however it was spelled; an
 * exception or NotImplemented is an ordinary class.
 */
export function pyCanarySource(out: string, checked: readonly string[] = []): string {
  return `

# tdd-gate: the assertion machinery as it was when this plugin loaded, checked again at the end.
import builtins as _builtins
import weakref as _weakref
import operator as _operator
import sys as _sys
_CANARY = ${JSON.stringify(out)}
_AE = _builtins.AssertionError
_TC = _unittest.TestCase
_tc_saved = {n: getattr(_TC, n, None) for n in ("assertEqual", "assertTrue", "assertFalse", "assertIs", "assertIn", "assertNotEqual", "assertAlmostEqual", "assertDictEqual", "assertListEqual", "assertRaises", "fail", "failureException", "_getAssertEqualityFunc", "_baseAssertEqual")}
_op_eq = _operator.eq
try:
    from _pytest.assertion import rewrite as _rewrite
    from _pytest.assertion import util as _autil
    _rw_saved = {n: getattr(_rewrite, n, None) for n in ("AssertionRewritingHook", "rewrite_asserts", "AssertionRewriter")}
    _hook_saved = {n: getattr(_rewrite.AssertionRewritingHook, n, None) for n in ("exec_module", "find_spec")}
    _util_saved = {n: getattr(_autil, n, None) for n in ("assertrepr_compare",)}
except Exception:
    _rewrite = None


def _tdd_canary(config):
    failures = []
    if _builtins.AssertionError is not _AE:
        failures.append("AssertionError was replaced")
    for n, f in _tc_saved.items():
        if getattr(_TC, n, None) is not f:
            failures.append("unittest.TestCase." + n + " was replaced")
    if _operator.eq is not _op_eq:
        failures.append("operator.eq was replaced")

    class _Probe(_TC):
        def runTest(self):
            pass

    probe = _Probe()
    for what, call in (("assertEqual(1, 2)", lambda: probe.assertEqual(1, 2)), ("assertEqual({'a': 1}, {'a': 2})", lambda: probe.assertEqual({"a": 1}, {"a": 2})), ("assertTrue(False)", lambda: probe.assertTrue(False))):
        try:
            call()
            failures.append("unittest " + what + " no longer fails")
        except _AE:
            pass
        except BaseException as e:
            failures.append("unittest " + what + " raised " + type(e).__name__)
    if (1 == 2) or not (1 != 2) or ([1] == [2]) or ({"a": 1} == {"a": 2}) or ("a" == "b"):
        failures.append("== of builtins no longer tells values apart")
    if _rewrite is not None:
        for n, f in _rw_saved.items():
            if getattr(_rewrite, n, None) is not f:
                failures.append("pytest's assertion rewriting (" + n + ") was replaced")
        for n, f in _hook_saved.items():
            if getattr(_rewrite.AssertionRewritingHook, n, None) is not f:
                failures.append("pytest's assertion rewriting hook (" + n + ") was replaced")
        for n, f in _util_saved.items():
            if getattr(_autil, n, None) is not f:
                failures.append("pytest's assertion comparison (" + n + ") was replaced")
        try:
            mode = config.getoption("assertmode")
        except Exception:
            mode = "rewrite"
        if mode == "rewrite" and not any(isinstance(h, _rw_saved["AssertionRewritingHook"]) for h in _sys.meta_path):
            failures.append("pytest's assertion rewriting is no longer active")
    return failures


${pyAlwaysEqualSource(checked)}

def _tdd_canary_end(config):
    try:
        failures = _tdd_canary(config)
    except BaseException as e:
        failures = ["the check itself raised " + type(e).__name__]
    try:
        _eq_scan()
    except BaseException:
        pass
    fd = _os.open(_CANARY, _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT, 0o600)
    try:
        _write(fd, (_dumps({"tddGateCanary": 1, "pid": _os.getpid(), "argv": [], "worker": True, "failures": failures, "alwaysEqual": _eq_found[:20]}) + "\\n").encode("utf-8", "backslashreplace"))
    finally:
        _os.close(fd)


_at_end.append(_tdd_canary_end)
_after_call.append(_eq_scan_after_call)
`;
}

/** The always-true equality check of pyCanarySource (Python; uses the plugin's `_os`, `_sys`, `_weakref`). */
function pyAlwaysEqualSource(checked: readonly string[]): string {
  return `
_EQ_ROOT = _os.getcwd()
_EQ_FILES = {}
for _rel in ${JSON.stringify(checked)}:
    try:
        _EQ_FILES[_os.path.realpath(_os.path.join(_EQ_ROOT, _rel))] = _rel
    except Exception:
        pass
_eq_judged = _weakref.WeakSet()
_eq_found = []
_eq_paths = {}
_eq_subclasses = type.__subclasses__
_eq_dict = type.__dict__["__dict__"].__get__
_eq_mro = type.__dict__["__mro__"].__get__
_eq_qualname = type.__dict__["__qualname__"].__get__
_eq_object_new = object.__new__
_eq_bool = bool
_eq_type = type
_eq_isinstance = isinstance
_eq_str = str


class _EqProbe:
    pass


def _eq_rel(filename):
    if not _eq_isinstance(filename, _eq_str):
        return None
    if filename not in _eq_paths:
        try:
            _eq_paths[filename] = _EQ_FILES.get(_os.path.realpath(filename))
        except Exception:
            _eq_paths[filename] = None
    return _eq_paths[filename]


def _eq_code_rel(fn):
    # a function or lambda, or one wrapped in a staticmethod, classmethod or partial
    for _ in range(4):
        code = getattr(fn, "__code__", None)
        if code is not None:
            return _eq_rel(getattr(code, "co_filename", None))
        nxt = getattr(fn, "__func__", None) or getattr(fn, "func", None)
        if nxt is None:
            return None
        fn = nxt
    return None


def _eq_where(cls):
    """The checked source that defines cls (by its module, or where its __eq__/__ne__ is written), or None."""
    d = _eq_dict(cls)
    mod = d.get("__module__")
    if _eq_isinstance(mod, _eq_str):
        m = _sys.modules.get(mod)
        rel = _eq_rel(getattr(m, "__file__", None)) if m is not None else None
        if rel is not None:
            return rel
    for owner in (cls, _eq_type(cls)):
        for name in ("__eq__", "__ne__"):
            for k in _eq_mro(owner):
                kd = _eq_dict(k)
                if name in kd:
                    rel = _eq_code_rel(kd[name])
                    if rel is not None:
                        return rel
                    break
    return None


def _eq_always(subject, probes):
    """'==' when subject equals every probe, '!=' when it is unequal to none, else None."""
    try:
        if all(_eq_bool(subject == p) for p in probes):
            return "=="
    except Exception:
        pass
    try:
        if not any(_eq_bool(subject != p) for p in probes):
            return "!="
    except Exception:
        pass
    return None


def _eq_judge(cls, rel):
    probe = _EqProbe()
    probe.tdd_gate_probe = 1
    probes = (object(), probe, 12345.678, "tdd-gate-probe")
    inst = None
    try:
        inst = _eq_object_new(cls)
    except Exception:
        try:
            inst = cls.__new__(cls)
        except Exception:
            inst = None
    how = None
    if inst is not None and _eq_type(inst) is cls:
        how = _eq_always(inst, probes)
        if how is not None:
            how = "its instances' " + how
    if how is None and _eq_type(cls) is not _eq_type:
        how = _eq_always(cls, probes)
        if how is not None:
            how = "the class's own " + how + " (its metaclass)"
    if how is None:
        return
    try:
        name = _eq_qualname(cls)
    except Exception:
        name = "?"
    _eq_found.append({"class": _eq_str(name), "file": rel, "how": how})


_EQ_PACE = 5000
_eq_pace = {"wait": 0}


def _eq_scan_after_call():
    # A large class graph (tens of thousands of classes) is walked after every few tests instead of
    # every one, about one walk's worth of classes per 5,000 a test; the walk at the end sees all
    # that still exist. The pace goes by the count of classes, never by time, so a run is judged
    # the same on a busy machine.
    if _eq_pace["wait"] > 0:
        _eq_pace["wait"] -= 1
        return
    _eq_pace["wait"] = _eq_scan() // _EQ_PACE


def _eq_scan():
    if not _EQ_FILES:
        return 0
    stack = [object]
    walked = set()
    while stack:
        c = stack.pop()
        if id(c) in walked:
            continue
        walked.add(id(c))
        try:
            subs = _eq_subclasses(c)
        except Exception:
            subs = []
        stack.extend(subs)
        try:
            if c in _eq_judged:
                continue
            _eq_judged.add(c)
        except TypeError:
            continue
        try:
            rel = _eq_where(c)
        except Exception:
            rel = None
        if rel is not None:
            try:
                _eq_judge(c, rel)
            except BaseException:
                pass
    return len(walked)
`;
}
