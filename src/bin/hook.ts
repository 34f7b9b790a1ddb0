import { readFileSync, writeSync } from 'node:fs';
import { runHook } from '../hooks/run.js';

// I/O glue only: stdin → runHook → stdout/exit code. Everything else is importable and tested directly.
function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Straight to the file descriptor: touching process.stdout or process.stderr loads node's stream
 * modules, which costs more than the whole quick check.
 */
function writeAll(fd: number, text: string): void {
  let rest = Buffer.from(text, 'utf8');
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (err) {
      // A non-blocking pipe that is full: wait for the reader, as a blocking write would.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

// No top-level await: the bundle is CommonJS, which node starts without its ES module loader.
void runHook(readStdin(), process.argv[2], process.env).then((result) => {
  writeAll(2, result.stderr);
  writeAll(1, result.stdout);
  // Everything is written (synchronously); exit now rather than let node wind down the event loop,
  // which costs more than the quick check. 'exit' listeners (the code cache) still run.
  process.exit(result.exitCode);
});
