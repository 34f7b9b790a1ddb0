import { it } from 'vitest';
import { wallAvailability } from '../../src/wall/sandbox.js';

/** Whether Claude Code's Bash sandbox (bubblewrap) can run on this machine, measured once. */
export const WALL = wallAvailability();

/**
 * Where the sandbox cannot run, a loud skipped case that names the measured reason (and fails
 * under CI, which installs bubblewrap and socat): never a silent pass.
 */
export function noWallCase(what: string): void {
  if (WALL.ok) return;
  it(`skipped: ${what} needs a working sandbox`, (ctx) => {
    const banner = `\n${'!'.repeat(72)}\n!! ${what} skipped: ${WALL.problem ?? 'no sandbox'}\n${'!'.repeat(72)}\n`;
    if (process.env.CI) throw new Error(`${banner}CI must install bubblewrap and socat.`);
    console.warn(banner);
    ctx.skip();
  });
}
