import { createRequire as __tddCreateRequire } from 'node:module'; const require = __tddCreateRequire(import.meta.url);
var t=[];async function s(r,e){let o=t.find(n=>n.name===r[0]);return o?o.run(r.slice(1),e):(e.stderr.write(`tdd-gate: unknown verb ${r[0]??"(none)"}
`),2)}process.exitCode=await s(process.argv.slice(2),{cwd:process.cwd(),env:process.env,stdout:process.stdout,stderr:process.stderr});
