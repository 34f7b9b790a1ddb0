import { defineConfig } from 'vitest/config';
import { testSuites } from './scripts/test-suites.mjs';

// Two projects over one test tree (scripts/test-suites.mjs draws the line from the files):
//   unit   in process, against the sources: no build, no process but git. `npm run test:unit`.
//   built  the built hook and CLI, real runners, the real client. `npm test` builds, then runs both.
const suites = testSuites(import.meta.dirname);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Both cores: most tests wait on a child process (the built hook, a runner, the client), and
    // vitest's default of one worker on a two-core machine leaves the other core idle.
    maxWorkers: 2,
    // A developer's own Claude Code settings or kill switch must not leak into the tests.
    env: { TDD_GATE_DISABLE: '', CLAUDE_PLUGIN_ROOT: '' },
    projects: [
      { extends: true, test: { name: 'unit', include: suites.unit } },
      // A case here runs the CLI, a runner or the client, often several times: on a loaded machine
      // that can take minutes, so the default leaves room; a hang still fails.
      { extends: true, test: { name: 'built', include: suites.built, testTimeout: 180_000, hookTimeout: 180_000 } },
    ],
  },
});
