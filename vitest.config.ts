import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Both cores: most tests wait on a child process (the built hook, a runner, the client), and
    // vitest's default of one worker on a two-core machine leaves the other core idle.
    maxWorkers: 2,
    // A developer's own Claude Code settings or kill switch must not leak into the tests.
    env: { TDD_GATE_DISABLE: '', CLAUDE_PLUGIN_ROOT: '' },
  },
});
