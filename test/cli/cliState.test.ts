import { describe, expect, it } from 'vitest';
import { cliStateSchema } from '../../src/state/schema/cliState.js';

const base = { version: 1, phase: 'tdd-red', mode: 'standard', spec_id: 'S', spec_path: 's.md', spec_hash: '', plan_artifact: '', started_at: 'x', phase_entered_at: 'x' };

describe('cliStateSchema', () => {
  it('keeps keys it does not know (other parts own them)', () => {
    const r = cliStateSchema.safeParse({ ...base, loop: { budget: 3 } });
    expect(r.success && r.data).toMatchObject({ loop: { budget: 3 } });
  });
  it('accepts a hand-written state with only the DESIGN keys', () => {
    expect(cliStateSchema.safeParse(base).success).toBe(true);
  });
  it('rejects a malformed CLI key', () => {
    expect(cliStateSchema.safeParse({ ...base, frozen: { at: 'x', spec_hash: '', files: { a: 'nothex' } } }).success).toBe(false);
  });
});

describe('state migration', () => {
  it('refuses a state written by a newer tdd-gate instead of guessing', async () => {
    const { migrateState } = await import('../../src/state/stateStore.js');
    expect(() => migrateState({ ...base, version: 2 }, 's.json')).toThrow(/version 2, newer than this tdd-gate understands/);
    expect(migrateState({ ...base }, 's.json')).toEqual(base);
  });
});

describe('status: next step', () => {
  it('follows the receipts', async () => {
    const { nextStep } = await import('../../src/cli/verbs/status.js');
    const receipt = { at: 'x', command: 'c', exit_code: 1, valid: true, counts: { total: 1, failed: 1, passed: 0 }, output_sha256: '', log: '' };
    expect(nextStep({ ...base, phase: 'tdd-red' } as never)).toMatch(/verify red/);
    expect(nextStep({ ...base, phase: 'tdd-red', receipts: { red: receipt } } as never)).toMatch(/freeze --verdict/);
    expect(nextStep({ ...base, phase: 'tdd-green', receipts: { green: { ...receipt, valid: false } } } as never)).toMatch(/verify green/);
  });
});
