import { readFileSync } from 'node:fs';
import { runHook } from '../hooks/run.js';

// I/O glue only: stdin → runHook → stdout/exit code. Everything else is importable and tested directly.
function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

const result = await runHook(readStdin(), process.argv[2], process.env);
if (result.stderr) process.stderr.write(result.stderr);
process.stdout.write(result.stdout);
process.exitCode = result.exitCode;
