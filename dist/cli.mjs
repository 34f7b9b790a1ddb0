import { createRequire as __tddCreateRequire } from 'node:module'; const require = __tddCreateRequire(import.meta.url);
function r(e,s){return s.stderr.write(`tdd-gate: unknown verb ${e[0]??"(none)"}
`),Promise.resolve(2)}process.exitCode=await r(process.argv.slice(2),{cwd:process.cwd(),env:process.env,stdout:process.stdout,stderr:process.stderr});
