// Types for plugin-folder.mjs.
export const ROOT: string;
export const PLUGIN_DIR: string;
export const PLUGIN_PARTS: { folders: string[]; files: string[] };
export const MAX_PLUGIN_BYTES: number;
export function wantedFiles(root?: string): Map<string, Buffer>;
export function differences(root?: string): string[];
export function assemble(root?: string): { files: number; bytes: number };
