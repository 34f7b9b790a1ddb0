// Fails when dist/ differs from what is committed: a marketplace install runs the committed bundles.
import { execFileSync } from 'node:child_process';

execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
const status = execFileSync('git', ['status', '--porcelain', '--', 'dist'], { encoding: 'utf8' });
if (status.trim() !== '') {
  process.stderr.write(`dist/ is out of date with the sources; run \`npm run build\` and commit dist/:\n${status}`);
  process.exit(1);
}
process.stdout.write('dist/ is fresh\n');
