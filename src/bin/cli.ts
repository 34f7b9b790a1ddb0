import { main } from '../cli/main.js';

// I/O glue only: argv → main → exit code.
process.exitCode = await main(process.argv.slice(2), { cwd: process.cwd(), env: process.env, stdout: process.stdout, stderr: process.stderr });
