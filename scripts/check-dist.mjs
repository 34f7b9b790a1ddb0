// Fails when dist/ or the plugin/ install folder differs from what is committed: a marketplace
// install runs the committed bundles, copied from plugin/.
import { execFileSync } from 'node:child_process';

execFileSync('npm', ['run', '-s', 'build'], { stdio: 'inherit' });
const status = execFileSync('git', ['status', '--porcelain', '--', 'dist', 'plugin'], { encoding: 'utf8' });
if (status.trim() !== '') {
  process.stderr.write(`dist/ or plugin/ is out of date with the sources; run \`npm run build\` and commit dist/ and plugin/:\n${status}`);
  process.exit(1);
}
process.stdout.write('dist/ and plugin/ are fresh\n');
