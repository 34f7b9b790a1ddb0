import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { instrumentCommand } from '../../src/verify/evidence/instrument.js';
import { newSealKey, openSeal } from '../../src/verify/evidence/seal.js';
import { parsePytestReport } from '../../src/verify/evidence/pytestOutcomes.js';
import { alwaysEqualProblem, parseCanary } from '../../src/verify/rules/canary.js';

const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;

/** Runs pytest with the gate's plugin as the CLI builds it, on a project of `files`; returns the opened report and the canary's lines. */
function runPlugin(files: Record<string, string>, checked: string[]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tdd-gate-pyeq-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const proj = path.join(dir, 'proj');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(proj, rel)), { recursive: true });
    writeFileSync(path.join(proj, rel), text);
  }
  const report = path.join(dir, 'run.report');
  const plan = instrumentCommand('python3 -m pytest -q -p no:cacheprovider', report, undefined, { pyEqualityChecked: checked });
  expect(plan.kind).toBe('pytest');
  const mod = path.join(dir, 'mod');
  mkdirSync(mod);
  writeFileSync(path.join(mod, `${plan.pythonModule!.name}.py`), plan.pythonModule!.source);
  const key = newSealKey();
  writeFileSync(plan.seal!.keyFile, key, { mode: 0o600 });
  const r = spawnSync('sh', ['-c', plan.command], { cwd: proj, env: { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONPATH: mod, PYTHONDONTWRITEBYTECODE: '1' }, encoding: 'utf8' });
  const opened = openSeal(readFileSync(report, 'utf8'), key);
  if (!opened.ok) throw new Error(`${opened.problem}\n${r.stdout}${r.stderr}`);
  return { status: r.status, report: parsePytestReport(opened.body), canary: parseCanary(readFileSync(plan.canary!, 'utf8')) };
}

/** Ordinary classes a project's sources hold: not one of them is an equality that is always true. */
const ORDINARY = `import abc, collections, dataclasses, decimal, enum, fractions, typing
from unittest import mock

@dataclasses.dataclass
class Point:
    x: int = 0

@dataclasses.dataclass(frozen=True, order=True)
class Frozen:
    x: int = 0

Pair = collections.namedtuple("Pair", "a b")

class Typed(typing.NamedTuple):
    a: int = 0

class Color(enum.Enum):
    RED = 1

class Level(enum.IntEnum):
    LOW = 1

class Perm(enum.Flag):
    R = 1

class Money(decimal.Decimal):
    pass

class Ratio(fractions.Fraction):
    pass

class Shape(abc.ABC):
    @abc.abstractmethod
    def area(self): ...

class Square(Shape):
    def area(self):
        return 1

class Proto(typing.Protocol):
    def run(self) -> int: ...

class Slotted:
    __slots__ = ("x",)
    def __eq__(self, other):
        return isinstance(other, Slotted) and self.x == other.x
    __hash__ = None

class ByFields:
    def __init__(self, x):
        self.x = x
    def __eq__(self, other):
        if not isinstance(other, ByFields):
            return NotImplemented
        return self.x == other.x
    __hash__ = None

class ByDict:
    def __eq__(self, other):
        return vars(self) == getattr(other, "__dict__", {})

class ByText:
    def __eq__(self, other):
        return str(self) == str(other)

class Singleton:
    _it = None
    def __new__(cls):
        if cls._it is None:
            cls._it = super().__new__(cls)
        return cls._it

class Text(str):
    pass

class Count(int):
    pass

class Client(mock.MagicMock):
    pass

class AppError(ValueError):
    pass

def add(a, b):
    return a + b
`;

const TEST = 'from src.calc import add\nfrom unittest import mock\n\nclass Anything:\n    def __eq__(self, other):\n        return True\n\ndef test_add():\n    assert add(1, 2) == 3\n    assert mock.ANY == add(1, 1)\n    assert Anything() == 7\n';

describe.skipIf(!hasPytest)('pytest’s plugin: equality that is always true, tried where it runs', () => {
  it('ordinary classes of the sources, test files’ own matchers and the standard library’s are not named', { timeout: 60_000 }, () => {
    const { status, report, canary } = runPlugin({ 'src/__init__.py': '', 'src/calc.py': ORDINARY, 'tests/__init__.py': '', 'tests/test_calc.py': TEST }, ['src/__init__.py', 'src/calc.py']);
    expect(status).toBe(0);
    expect(report.facts.counts).toEqual({ total: 1, passed: 1, failed: 0, skipped: 0 });
    expect(canary.map((l) => [l.failures, l.alwaysEqual])).toEqual([[[], []]]);
  });

  it('every spelling is named with its file; a file left out of the checked sources (allowed) is not', { timeout: 60_000 }, () => {
    const cheats = `class ByDef:
    def __eq__(self, other):
        return True

class ByLambda:
    __eq__ = lambda self, other: 1

class NeverUnequal:
    def __ne__(self, other):
        return False

class Late:
    pass
setattr(Late, "__eq__", lambda s, o: True)

Made = type("Made", (), {"__eq__": lambda s, o: True})

class Writes(type):
    def __new__(m, n, b, d):
        d["__eq__"] = lambda s, o: True
        return super().__new__(m, n, b, d)

class ByMeta(metaclass=Writes):
    pass

class SelfEqual(type):
    def __eq__(cls, other):
        return True
    __hash__ = type.__hash__

class ClassItself(metaclass=SelfEqual):
    pass

class Three(int):
    __eq__ = lambda s, o: True
    __hash__ = int.__hash__

class Word(str):
    def __eq__(self, other):
        return "yes"
    __hash__ = str.__hash__

class Wrapped:
    __eq__ = staticmethod(lambda *a: True)

def add(a, b):
    class Local:
        pass
    Local.__eq__ = lambda s, o: True
    Local()
    return a + b
`;
    const allowed = 'class Any:\n    def __eq__(self, other):\n        return True\n';
    const { canary } = runPlugin({ 'src/__init__.py': '', 'src/calc.py': cheats, 'src/matchers.py': allowed, 'tests/__init__.py': '', 'tests/test_calc.py': 'from src.calc import add\nimport src.matchers\n\ndef test_add():\n    assert add(1, 2) == 3\n' }, ['src/__init__.py', 'src/calc.py']);
    const found = canary.flatMap((l) => l.alwaysEqual ?? []);
    expect(found.map((a) => a.class).sort()).toEqual(['ByDef', 'ByLambda', 'ByMeta', 'ClassItself', 'Late', 'Made', 'NeverUnequal', 'Three', 'Word', 'Wrapped', 'add.<locals>.Local'].sort());
    expect(new Set(found.map((a) => a.file))).toEqual(new Set(['src/calc.py']));
    expect(found.find((a) => a.class === 'NeverUnequal')?.how).toBe("its instances' !=");
    expect(found.find((a) => a.class === 'ClassItself')?.how).toBe("the class's own == (its metaclass)");
    expect(alwaysEqualProblem(canary)).toMatch(/class \S+ in src\/calc\.py/);
  });
});
