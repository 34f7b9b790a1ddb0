import { main } from '../cli/main.js';

// A reader that went away (`tdd-gate status | head -1`) is no error of the verb's: the state
// change is already made, so the rest of the output is dropped instead of crashing with EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });
}

// I/O glue only: argv → main → exit code.
process.exitCode = await main(process.argv.slice(2), { cwd: process.cwd(), env: process.env, stdout: process.stdout, stderr: process.stderr });
