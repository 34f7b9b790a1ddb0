// The hook is dist/hook.cjs; this entry stays for hook commands written before it.
import { createRequire } from 'node:module';
createRequire(import.meta.url)('./hook.cjs');
