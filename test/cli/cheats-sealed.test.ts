import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { testRepo } from '../helpers/repo.js';
import { cli, ok, project, readState, redToGreen, startRed } from './fixtures.js';
import { mochaProject } from './mochaFixture.js';

/**
 * The gate's own reporters seal what they write (src/verify/evidence/seal.ts): pytest's plugin,
 * mocha's reporter and node:test's. A source that writes a passing report where the gate's goes,
 * prints a passing summary and exits as it loads, or kills the reporting process inside a test, is
 * refused at `verify green`; a genuine cycle reaches done. pytest's canary also tries the classes
 * of the project's sources for an equality that is always true, however it is spelled.
 */

const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

const PYTEST_STACK = {
  language: 'python',
  test_command: 'python3 -m pytest -q -p no:cacheprovider',
  test_file_glob: 'tests/**',
  source_file_glob: 'src/**',
  red_confirm: 'AssertionError|assert ',
  build_error_pattern: 'SyntaxError|IndentationError|ModuleNotFoundError|ImportError',
};
const PY_TEST = 'from src.calc import add, sub\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_sub():\n    assert sub(3, 1) == 2\n';
const PY_STUB = '# STUB:TDD\ndef add(a, b):\n    return 0\n\ndef sub(a, b):\n    return a - b\n';
const PY_REAL = 'def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n';
const PY_BODY = PY_STUB.replace('# STUB:TDD\n', '');

/** Ordinary classes beside the real code: none of them is an equality that is always true. */
const PY_ORDINARY = `import collections
import dataclasses
import decimal
import enum


@dataclasses.dataclass
class Point:
    x: int = 0


Pair = collections.namedtuple("Pair", "a b")


class Color(enum.Enum):
    RED = 1


class Money(decimal.Decimal):
    pass


class Flags(enum.IntFlag):
    A = 1


class Vec:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, Vec) and other.x == self.x

    __hash__ = None


class SameDict:
    def __eq__(self, other):
        return vars(self) == getattr(other, "__dict__", {})


class CalcError(ValueError):
    pass
`;

/** A class whose equality is always true, each way it can be spelled, and what the refusal names. */
const ALWAYS_EQUAL: [string, string, string][] = [
  ['a def', 'class Total:\n    def __eq__(self, other):\n        return 1 < 2\n\ndef add(a, b):\n    return Total()\n', 'Total'],
  ['a lambda', 'class Total:\n    __eq__ = lambda self, other: not None\n\ndef add(a, b):\n    return Total()\n', 'Total'],
  // (the frozen test compares with ==: the class is there, the test passes on the real sum)
  ['an inequality that is always false', 'class Total:\n    def __ne__(self, other):\n        return 0 > 1\n\ndef add(a, b):\n    return a + b\n', 'Total'],
  ['setattr', "class Total:\n    pass\n\nsetattr(Total, '__e' + 'q__', lambda s, o: bool(1))\n\ndef add(a, b):\n    return Total()\n", 'Total'],
  ['type() with a dict', "Total = type('Total', (), {'__e' + 'q__': lambda s, o: bool(1)})\n\ndef add(a, b):\n    return Total()\n", 'Total'],
  [
    'a metaclass that writes it into the class',
    "class Kind(type):\n    def __new__(m, name, bases, ns):\n        ns['__e' + 'q__'] = lambda s, o: bool(1)\n        return super().__new__(m, name, bases, ns)\n\nclass Total(metaclass=Kind):\n    pass\n\ndef add(a, b):\n    return Total()\n",
    'Total',
  ],
  ['a metaclass whose own == is always true (the class is the value)', "class Kind(type):\n    __hash__ = type.__hash__\n\nsetattr(Kind, '__e' + 'q__', lambda c, o: bool(1))\n\nclass Total(metaclass=Kind):\n    pass\n\ndef add(a, b):\n    return Total\n", 'Total'],
  ['a subclass of int', "class Three(int):\n    __hash__ = int.__hash__\n\nsetattr(Three, '__e' + 'q__', lambda s, o: bool(1))\n\ndef add(a, b):\n    return Three(0)\n", 'Three'],
  ['a subclass of str', "class Three(str):\n    __hash__ = str.__hash__\n\nsetattr(Three, '__e' + 'q__', lambda s, o: bool(1))\n\ndef add(a, b):\n    return Three('0')\n", 'Three'],
  ['a class made inside the function', "def add(a, b):\n    class Total:\n        pass\n    setattr(Total, '__e' + 'q__', lambda s, o: bool(1))\n    return Total()\n", 'add.<locals>.Total'],
];

describe.skipIf(!hasPytest)('pytest: the sealed report of the gate’s plugin, and equality checked where it runs', () => {
  it('each cheat is refused at verify green; the real implementation beside ordinary classes reaches done', { timeout: 300_000 }, () => {
    const repo = testRepo({ stack: PYTEST_STACK, files: { 'src/__init__.py': '', 'tests/__init__.py': '' } });
    startRed(repo);
    repo.write('tests/test_calc.py', PY_TEST);
    // a test file's own always-equal helper (a mock-like ANY) is the tests' business, not the source's
    repo.write('tests/helpers.py', 'class Anything:\n    def __eq__(self, other):\n        return True\n');
    repo.write('src/calc.py', PY_STUB);
    redToGreen(repo);
    const refused = (re: RegExp) => expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(re);

    // a source that writes a passing report where the gate's plugin writes its own
    repo.write(
      'src/calc.py',
      "import json, sys\nplugin = sys.modules['tdd_gate_pytest_outcomes']\nwith open(plugin._TddGateSeal.OUT_PATH, 'a') as f:\n    for n in ('test_add', 'test_sub'):\n        body = json.dumps({'k': 'test', 'nodeid': 'tests/test_calc.py::' + n, 'report': {'setup': 'passed', 'call': 'passed', 'teardown': 'passed'}, 'seen': {}, 'fails': []})\n        f.write(json.dumps({'seal': 'record', 'i': 1, 'body': body}) + '\\t' + '0' * 64 + '\\n')\n" +
        PY_BODY,
    );
    refused(/not GREEN: the test run left no report of the gate’s own reporter it can trust: line \d+ of its report was not written by the gate’s reporter/);
    // a passing summary printed as the source loads, then the interpreter ends with 0
    repo.write('src/calc.py', "import os\nprint('2 passed in 0.01s')\nos._exit(0)\n" + PY_BODY);
    refused(/not GREEN: the gate’s reporter saw the run begin but not end/);
    // the process killed inside the failing test
    repo.write('src/calc.py', "import os, signal\n\ndef add(a, b):\n    os.kill(os.getpid(), signal.SIGKILL)\n\ndef sub(a, b):\n    return a - b\n");
    refused(/killed by a signal|saw the run begin but not end/);
    // the session stopped inside the failing test, the exit code forced to 0 after pytest ended
    repo.write('src/calc.py', "import atexit, os\natexit.register(lambda: os._exit(0))\n\ndef add(a, b):\n    raise KeyboardInterrupt\n\ndef sub(a, b):\n    return a - b\n");
    refused(/pytest's session was interrupted \(exit status 2\)/);

    for (const [what, source, name] of ALWAYS_EQUAL) {
      repo.write('src/calc.py', `${source}\ndef sub(a, b):\n    return a - b\n`);
      const r = ok(cli(repo, 'verify', 'green'), 1);
      expect(r.stderr, what).toMatch(/not GREEN: /);
      expect(r.stderr, what).toMatch(new RegExp(`class ${name.replace(/[.<>]/g, '\\$&')} in src/calc\\.py \\(.* is always (true|false)\\)`));
    }

    repo.write('src/calc.py', PY_REAL);
    repo.write('src/shapes.py', PY_ORDINARY);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('a class the project lists in runner_reach_allow (`<glob>#always-equal`) passes; -I or -E is refused with what to change', { timeout: 180_000 }, () => {
    const repo = testRepo({ stack: { ...PYTEST_STACK, runner_reach_allow: ['src/matchers.py#always-equal'] }, files: { 'src/__init__.py': '', 'tests/__init__.py': '', 'src/matchers.py': 'class AnyValue:\n    def __eq__(self, other):\n        return True\n\nANY = AnyValue()\n' } });
    startRed(repo);
    repo.write('tests/test_calc.py', 'from src.matchers import ANY\n' + PY_TEST);
    repo.write('src/calc.py', PY_STUB);
    redToGreen(repo);
    repo.write('src/calc.py', PY_REAL);
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));

    const isolated = testRepo({ stack: { ...PYTEST_STACK, test_command: 'python3 -I -m pytest -q' }, files: { 'src/__init__.py': '', 'tests/__init__.py': '' } });
    startRed(isolated);
    isolated.write('tests/test_calc.py', PY_TEST);
    isolated.write('src/calc.py', PY_STUB);
    expect(ok(cli(isolated, 'verify', 'red'), 1).stderr).toMatch(/-I or -E, which ignore PYTHONPATH.*drop -I\/-E from test_command/);
  });
});

const JS_ADD_TEST = "const assert = require('node:assert/strict');\nconst { add } = require('../src/add');\n\ndescribe('add', () => {\n  it('adds', () => {\n    assert.equal(add(1, 2), 3);\n  });\n});\n";
const JS_OLD_TEST = "const assert = require('node:assert/strict');\n\ndescribe('old', () => {\n  it('holds', () => {\n    assert.equal(1, 1);\n  });\n});\n";

describe('mocha: the sealed report of the gate’s reporter', () => {
  it('a forged report, a kill inside a test and a summary printed at load are refused; the real implementation reaches done', { timeout: 240_000 }, () => {
    const repo = mochaProject({ 'test/old.test.js': JS_OLD_TEST });
    startRed(repo);
    repo.write('test/add.test.js', JS_ADD_TEST);
    repo.write('src/add.js', '// STUB:TDD\nexports.add = () => 0;\n');
    redToGreen(repo);
    const refused = (re: RegExp) => expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(re);

    // the source finds the run's report and appends passing lines to it
    repo.write(
      'src/add.js',
      "const fs = require('fs');\nconst line = (i, seal, body) => JSON.stringify({ seal, i, body: JSON.stringify(body) }) + '\\t' + 'f'.repeat(64) + '\\n';\nfor (const f of fs.readdirSync('.tdd/runs')) if (f.endsWith('-green.report')) fs.appendFileSync('.tdd/runs/' + f, line(1, 'record', { tddGateMocha: 1, k: 'begin' }) + line(2, 'record', { k: 'test', n: 1, file: 'test/add.test.js', path: ['add', 'adds'], status: 'passed' }) + line(3, 'end', {}));\nexports.add = () => 0;\n",
    );
    refused(/line \d+ of its report was not written by the gate’s reporter/);
    // killed inside the test
    repo.write('src/add.js', "exports.add = () => { process.kill(process.pid, 'SIGKILL'); };\n");
    refused(/killed by a signal|saw the run begin but not end/);
    // a summary printed as the source loads, and exit 0
    repo.write('src/add.js', "process.stdout.write('\\n  2 passing (3ms)\\n\\n');\nprocess.exit(0);\n");
    refused(/saw the run begin but not end/);

    repo.write('src/add.js', 'exports.add = (a, b) => a + b;\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });
});

const NT_ADD_TEST = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('adds', () => { assert.equal(add(1, 2), 3); });\n";
const NT_OLD_TEST = "import { test } from 'node:test';\ntest('old', () => {});\n";

describe('node:test: the sealed report of the gate’s reporter', () => {
  it('a forged report and a kill of the reporting process are refused; the real implementation reaches done', { timeout: 240_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': NT_OLD_TEST });
    startRed(repo);
    repo.write('test/add.test.js', NT_ADD_TEST);
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    redToGreen(repo);
    const refused = (re: RegExp) => expect(ok(cli(repo, 'verify', 'green'), 1).stderr).toMatch(re);

    // the test file's process finds the run's report and writes a passing one over it
    repo.write(
      'src/add.js',
      "import fs from 'node:fs';\nconst dir = '.tdd/runs';\nfor (const f of fs.readdirSync(dir)) if (f.endsWith('-green.report')) {\n  const body = JSON.stringify({ tddGateNodeTest: 1, complete: true, events: [{ kind: 'pass', name: 'adds', nesting: 0, file: process.cwd() + '/test/add.test.js' }] });\n  fs.writeFileSync(dir + '/' + f, JSON.stringify({ seal: 'begin', i: 0, body: '' }) + '\\t' + 'a'.repeat(64) + '\\n' + JSON.stringify({ seal: 'record', i: 1, body }) + '\\t' + 'b'.repeat(64) + '\\n');\n}\nexport function add() { return 0; }\n",
    );
    refused(/line 1 of its report was not written by the gate’s reporter/);
    // the runner's own process killed from a test file's process
    repo.write('src/add.js', "export function add() { process.kill(process.ppid, 'SIGKILL'); return 0; }\n");
    refused(/saw the run begin but not end|killed by a signal/);
    // a test file's process that exits 0 as it loads: its tests never ran
    repo.write('src/add.js', "process.stdout.write('ℹ tests 2\\nℹ pass 2\\n');\nprocess.exit(0);\nexport function add() { return 0; }\n");
    refused(/frozen tests did not run: test\/add\.test\.js::adds|report .* and its printed summary .* disagree/);

    repo.write('src/add.js', 'export function add(a, b) { return a + b; }\n');
    ok(cli(repo, 'verify', 'green'));
    ok(cli(repo, 'done'));
    expect(readState(repo).phase).toBe('done');
  });

  it('a command that runs `node --test` twice is refused with what to change, in RED already', { timeout: 120_000 }, () => {
    const repo = project('node-test', { 'test/old.test.js': NT_OLD_TEST }, { test_command: 'node --test test/old.test.js && node --test test/add.test.js' });
    startRed(repo);
    repo.write('test/add.test.js', NT_ADD_TEST);
    repo.write('src/add.js', '// STUB:TDD\nexport function add() { return 0; }\n');
    expect(ok(cli(repo, 'verify', 'red'), 1).stderr).toMatch(/runs `node --test` more than once.*make it one `node --test` call/);
  });
});
