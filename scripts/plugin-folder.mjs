#!/usr/bin/env node
// Assembles plugin/: the folder a marketplace install copies, holding only what runs (the
// bundles, the hook wiring, the skills and agents, the SPEC example the setup skill shows, the
// plugin manifest, README and LICENSE). The repository root keeps its full layout and its
// package.json + lockfile for `npm ci && npm test`; a client that finds those at a plugin's root
// runs a package manager there, so the marketplace entry points at this folder instead.
// plugin/ is generated and committed: `npm run build` writes it, the dist freshness check
// (scripts/check-dist.mjs) and CI fail when it differs from what is committed.
//
//   node scripts/plugin-folder.mjs            write plugin/
//   node scripts/plugin-folder.mjs --check    exit 1 (listing the differences) when plugin/ is stale
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PLUGIN_DIR = 'plugin';

/** What a plugin install needs, relative to the repository root: whole folders, then single files. */
export const PLUGIN_PARTS = {
  folders: ['dist', 'hooks', 'skills', 'agents', 'examples'],
  files: ['.claude-plugin/plugin.json', 'README.md', 'LICENSE'],
};

/** An install folder must stay small; a client copies it into every user's plugin cache (1.5 MB was outgrown by the walls of this round: the OS wall, held-out tests, the runner's installation). */
export const MAX_PLUGIN_BYTES = 1_750_000;

function walk(root, rel) {
  const abs = path.join(root, rel);
  if (!existsSync(abs)) return [];
  if (statSync(abs).isFile()) return [rel];
  return readdirSync(abs)
    .filter((name) => !name.endsWith('.tmp'))
    .sort()
    .flatMap((name) => walk(root, path.join(rel, name)));
}

/** The files plugin/ must hold, as { rel → content }, read from the repository root. */
export function wantedFiles(root = ROOT) {
  const out = new Map();
  for (const folder of PLUGIN_PARTS.folders) for (const rel of walk(root, folder)) out.set(rel, readFileSync(path.join(root, rel)));
  for (const rel of PLUGIN_PARTS.files) {
    const abs = path.join(root, rel);
    if (!existsSync(abs)) throw new Error(`plugin folder: ${rel} is missing at the repository root`);
    out.set(rel, readFileSync(abs));
  }
  return out;
}

/** How plugin/ differs from what it should hold: one line per file, empty when fresh. */
export function differences(root = ROOT) {
  const wanted = wantedFiles(root);
  const dir = path.join(root, PLUGIN_DIR);
  const present = new Set(walk(dir, '.').map((rel) => path.normalize(rel)));
  const lines = [];
  for (const [rel, content] of wanted) {
    const file = path.join(dir, rel);
    if (!present.has(rel)) lines.push(`missing   ${PLUGIN_DIR}/${rel}`);
    else if (!readFileSync(file).equals(content)) lines.push(`stale     ${PLUGIN_DIR}/${rel}`);
  }
  for (const rel of present) if (!wanted.has(rel)) lines.push(`extra     ${PLUGIN_DIR}/${rel}`);
  return lines;
}

/** Writes plugin/ (only files whose content changed), removes what no longer belongs there. */
export function assemble(root = ROOT) {
  const wanted = wantedFiles(root);
  const dir = path.join(root, PLUGIN_DIR);
  let bytes = 0;
  for (const [rel, content] of wanted) {
    bytes += content.length;
    const file = path.join(dir, rel);
    if (existsSync(file) && readFileSync(file).equals(content)) continue;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  for (const rel of walk(dir, '.')) if (!wanted.has(path.normalize(rel))) rmSync(path.join(dir, rel));
  if (bytes > MAX_PLUGIN_BYTES) throw new Error(`plugin folder: ${bytes} bytes, over the ${MAX_PLUGIN_BYTES} a plugin install may copy`);
  return { files: wanted.size, bytes };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const lines = differences();
    if (lines.length > 0) {
      process.stderr.write(`plugin/ is out of date; run \`npm run build\` and commit plugin/:\n${lines.join('\n')}\n`);
      process.exit(1);
    }
  } else {
    assemble();
  }
}
