import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CARGO_STACK } from '../cli/fixtures.js';
import { testRepo } from '../helpers/repo.js';
import { auditRun, failures, forge, forgeRedSource, head, honestCycle, recordJson, tamper, type CycleFiles } from './fixtures.js';

const hasCargo = spawnSync('cargo', ['--version'], { encoding: 'utf8' }).status === 0;

const CARGO_TOML = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n';
const LIB = 'pub fn one() -> i32 { 1 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn one_is_one() { assert_eq!(super::one(), 1); }\n}\n';
const LIB_WITH_ADD = `${LIB}pub fn add(a: i32, b: i32) -> i32 { a + b }\n`;

const CYCLE: CycleFiles = {
  test: ['tests/add.rs', '#[test]\nfn adds() { assert_eq!(calc::add(1, 2), 3); }\n'],
  stub: ['src/lib.rs', `${LIB}// STUB:TDD\npub fn add(_a: i32, _b: i32) -> i32 { 0 }\n`],
  impl: ['src/lib.rs', LIB_WITH_ADD],
};

describe.skipIf(!hasCargo)('tdd-gate audit on a cargo test project', () => {
  it('an honest cycle passes; a forged RED and Cargo.toml changed after the freeze fail', { timeout: 300_000 }, () => {
    const repo = testRepo({ stack: CARGO_STACK, files: { '.gitignore': 'target\n', 'Cargo.toml': CARGO_TOML, 'src/lib.rs': LIB } });
    const base = head(repo);
    const record = honestCycle(repo, CYCLE);
    const honest = head(repo);
    expect(Object.keys((recordJson(repo, record) as { red_sources: object }).red_sources)).toEqual(['src/lib.rs']);

    const good = auditRun(repo, base, '--require-cycles');
    expect(failures(good.report)).toEqual([]);
    expect(good.status).toBe(0);

    forge(repo, base, honest, 'red-passes', () => forgeRedSource(repo, record, 'src/lib.rs', LIB_WITH_ADD));
    expect(failures(auditRun(repo, base).report)).toEqual([expect.stringMatching(/^red-replayed: RED could not fail: tests\/add\.rs::adds passed at the rebuilt RED/)]);

    tamper(repo, honest, 'cargo-toml', () => repo.write('Cargo.toml', `${CARGO_TOML}autotests = false\n`));
    // Cargo.toml's runner part is frozen (its dependencies stay editable): `autotests` is runner configuration.
    expect(failures(auditRun(repo, base).report)).toContainEqual(expect.stringMatching(/^runner-config-unchanged: .*Cargo\.toml#runner/));
  });
});
