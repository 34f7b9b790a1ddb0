import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A developer's own Claude Code settings or kill switch must not leak into the tests.
    env: { TDD_GATE_DISABLE: '', CLAUDE_PLUGIN_ROOT: '' },
  },
});
