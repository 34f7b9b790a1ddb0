import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { composeCommand, composeEnv, composeValue, type EnvAddition } from '../../src/verify/rules/envCompose.js';

const PY: EnvAddition = { name: 'PYTHONPATH', value: '/gate/py', at: 'front', sep: ':' };
const NODE: EnvAddition = { name: 'NODE_OPTIONS', value: '--test-reporter=/gate/r.mjs', at: 'end', sep: ' ' };

describe('the gate composes its environment with the project’s', () => {
  it.each([
    ['no value of the project', undefined, PY, '/gate/py'],
    ['an empty value', '', PY, '/gate/py'],
    ['a search path: the gate’s folder first', 'src', PY, '/gate/py:src'],
    ['options: the gate’s last', '--no-warnings', NODE, '--no-warnings --test-reporter=/gate/r.mjs'],
  ])('%s', (_what, prev, add, want) => {
    expect(composeValue(prev, add)).toBe(want);
  });

  it('keeps every other variable and composes each addition', () => {
    expect(composeEnv({ PATH: '/bin', PYTHONPATH: 'lib', NODE_OPTIONS: '--trace-warnings' }, [PY, NODE])).toEqual({
      PATH: '/bin',
      PYTHONPATH: '/gate/py:lib',
      NODE_OPTIONS: '--trace-warnings --test-reporter=/gate/r.mjs',
    });
  });

  // command → the command with the gate's value composed into what it sets
  it.each([
    ['PYTHONPATH=src python3 -m pytest', [PY], "PYTHONPATH='/gate/py:'src python3 -m pytest"],
    ['PYTHONPATH=src:lib python3 -m pytest -q', [PY], "PYTHONPATH='/gate/py:'src:lib python3 -m pytest -q"],
    ['PYTHONPATH="src dir" pytest', [PY], `PYTHONPATH='/gate/py:'"src dir" pytest`],
    ['PYTHONPATH= pytest', [PY], "PYTHONPATH='/gate/py' pytest"],
    ['DEBUG=1 PYTHONPATH=src pytest', [PY], "DEBUG=1 PYTHONPATH='/gate/py:'src pytest"],
    ['env PYTHONPATH=src python3 -m pytest', [PY], "env PYTHONPATH='/gate/py:'src python3 -m pytest"],
    ['env -u HOME PYTHONPATH=src pytest', [PY], "env -u HOME PYTHONPATH='/gate/py:'src pytest"],
    ['export PYTHONPATH=src; pytest', [PY], "export PYTHONPATH='/gate/py:'src; pytest"],
    ['cd pkg && PYTHONPATH=. pytest', [PY], "cd pkg && PYTHONPATH='/gate/py:'. pytest"],
    ['NODE_OPTIONS=--no-warnings node --test', [NODE], "NODE_OPTIONS=--no-warnings' --test-reporter=/gate/r.mjs' node --test"],
    ['NODE_OPTIONS="--no-warnings --max-old-space-size=4096" node --test', [NODE], `NODE_OPTIONS="--no-warnings --max-old-space-size=4096"' --test-reporter=/gate/r.mjs' node --test`],
    ["NODE_OPTIONS='--no-warnings' npm test", [NODE], "NODE_OPTIONS='--no-warnings'' --test-reporter=/gate/r.mjs' npm test"],
  ])('%s', (command, adds, want) => {
    expect(composeCommand(command, adds)).toBe(want);
  });

  // what is left byte for byte
  it.each([
    ['a value that takes the environment’s in', 'PYTHONPATH=src:$PYTHONPATH pytest', [PY]],
    ['the braced form too', 'PYTHONPATH=${PYTHONPATH}:src pytest', [PY]],
    ['an argument, not an assignment', 'pytest --override-ini=PYTHONPATH=src', [PY]],
    ['another variable', 'DJANGO_SETTINGS_MODULE=app.settings pytest', [PY]],
    ['a quoted assignment-looking argument', "echo 'PYTHONPATH=src' | pytest", [PY]],
    ['nothing to add', 'PYTHONPATH=src pytest', []],
    ['an assignment inside a command substitution', 'pytest $(PYTHONPATH=src echo x)', [PY]],
  ])('%s', (_what, command, adds) => {
    expect(composeCommand(command, adds)).toBe(command);
  });

  it('the shell reads the composed command as both values', () => {
    const composed = composeCommand('PYTHONPATH="src dir" NODE_OPTIONS=--no-warnings sh -c \'printf "%s|%s" "$PYTHONPATH" "$NODE_OPTIONS"\'', [
      { ...PY, value: "/gate/it's py" },
      NODE,
    ]);
    expect(execFileSync('sh', ['-c', composed], { encoding: 'utf8' })).toBe("/gate/it's py:src dir|--no-warnings --test-reporter=/gate/r.mjs");
  });
});
