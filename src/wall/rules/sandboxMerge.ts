import type { SettingsSection as HardeningSection } from './sandbox.js';

/**
 * Merging tdd-gate's hardening section into the person's `.claude/settings.local.json` (parsed),
 * and taking it out again. Pure: values in, values out; the byte-exact restore (when nobody
 * touched the file meanwhile) is the I/O layer's job, this is the fallback that loses nothing.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: Json | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/** Scalars the wall needs whatever the person set; their values come back at the restore. */
const FORCED = ['enabled', 'failIfUnavailable', 'allowUnsandboxedCommands'] as const;

/**
 * `base` with the section merged in. The person's own keys stay, with three exceptions while the
 * wall is up: the forced scalars above, and `excludedCommands`, which is replaced by ours (an
 * entry of theirs would take commands out of the wall). Lists are unions, theirs first.
 */
export function mergeHardening(base: JsonObject, section: HardeningSection): JsonObject {
  const out: JsonObject = { ...base };
  const ours = section.sandbox;
  if (ours === undefined) {
    // Permission rules alone (held-out tests without hardened mode): the sandbox stays the person's.
    const perms: JsonObject = isObject(base.permissions) ? { ...base.permissions } : {};
    perms.deny = union(strings(perms.deny), section.deny);
    out.permissions = perms;
    return out;
  }
  const sb: JsonObject = isObject(base.sandbox) ? { ...base.sandbox } : {};
  for (const key of FORCED) sb[key] = ours[key];
  sb.excludedCommands = [...ours.excludedCommands];
  const fs: JsonObject = isObject(sb.filesystem) ? { ...sb.filesystem } : {};
  fs.allowWrite = union(strings(fs.allowWrite), ours.filesystem.allowWrite);
  fs.denyWrite = union(strings(fs.denyWrite), ours.filesystem.denyWrite);
  if (ours.filesystem.denyRead !== undefined) fs.denyRead = union(strings(fs.denyRead), ours.filesystem.denyRead);
  sb.filesystem = fs;
  const net: JsonObject = isObject(sb.network) ? { ...sb.network } : {};
  net.allowedDomains = union(strings(net.allowedDomains), ours.network.allowedDomains);
  if (ours.network.allowLocalBinding) net.allowLocalBinding = true;
  sb.network = net;
  out.sandbox = sb;
  if (section.env !== undefined && Object.keys(section.env).length > 0) out.env = { ...(isObject(base.env) ? base.env : {}), ...section.env };
  const perms: JsonObject = isObject(base.permissions) ? { ...base.permissions } : {};
  perms.deny = union(strings(perms.deny), section.deny);
  out.permissions = perms;
  return out;
}

/** Put `key` of `into` back to what `original` had (or remove it). */
function restoreKey(into: JsonObject, original: JsonObject | undefined, key: string): void {
  if (original && key in original) into[key] = original[key]!;
  else delete into[key];
}

/** A list without the entries we added (those the original did not have); back to the original's absence. */
function restoreList(into: JsonObject, original: JsonObject | undefined, key: string, added: readonly string[]): void {
  const theirs = strings(original?.[key]);
  const kept = (Array.isArray(into[key]) ? (into[key]) : []).filter((x) => typeof x !== 'string' || theirs.includes(x) || !added.includes(x));
  if (kept.length === 0 && !(original && key in original)) delete into[key];
  else into[key] = kept;
}

function emptyObject(v: Json | undefined): boolean {
  return isObject(v) && Object.keys(v).length === 0;
}

/**
 * `current` without what `applied` put there, the person's values back where we overrode them,
 * and every other change (the client's own permission approvals, the person's edits) kept.
 */
export function removeHardening(current: JsonObject, original: JsonObject, applied: HardeningSection): JsonObject {
  const out: JsonObject = { ...current };
  const origSb = isObject(original.sandbox) ? original.sandbox : undefined;
  if (isObject(current.sandbox) && applied.sandbox !== undefined) {
    const sb: JsonObject = { ...current.sandbox };
    for (const key of FORCED) restoreKey(sb, origSb, key);
    restoreKey(sb, origSb, 'excludedCommands');
    if (isObject(sb.filesystem)) {
      const origFs = isObject(origSb?.filesystem) ? origSb.filesystem : undefined;
      const fs: JsonObject = { ...sb.filesystem };
      restoreList(fs, origFs, 'allowWrite', applied.sandbox.filesystem.allowWrite);
      restoreList(fs, origFs, 'denyWrite', applied.sandbox.filesystem.denyWrite);
      if (applied.sandbox.filesystem.denyRead !== undefined) restoreList(fs, origFs, 'denyRead', applied.sandbox.filesystem.denyRead);
      sb.filesystem = fs;
      if (emptyObject(fs) && !(origSb && 'filesystem' in origSb)) delete sb.filesystem;
    }
    if (isObject(sb.network)) {
      const origNet = isObject(origSb?.network) ? origSb.network : undefined;
      const net: JsonObject = { ...sb.network };
      restoreList(net, origNet, 'allowedDomains', applied.sandbox.network.allowedDomains);
      if (applied.sandbox.network.allowLocalBinding) restoreKey(net, origNet, 'allowLocalBinding');
      sb.network = net;
      if (emptyObject(net) && !(origSb && 'network' in origSb)) delete sb.network;
    }
    out.sandbox = sb;
    if (emptyObject(sb) && !('sandbox' in original)) delete out.sandbox;
  }
  if (applied.env !== undefined && isObject(current.env)) {
    const origEnv = isObject(original.env) ? original.env : undefined;
    const env: JsonObject = { ...current.env };
    for (const key of Object.keys(applied.env)) restoreKey(env, origEnv, key);
    out.env = env;
    if (emptyObject(env) && !('env' in original)) delete out.env;
  }
  if (isObject(current.permissions)) {
    const origPerms = isObject(original.permissions) ? original.permissions : undefined;
    const perms: JsonObject = { ...current.permissions };
    restoreList(perms, origPerms, 'deny', applied.deny);
    out.permissions = perms;
    if (emptyObject(perms) && !('permissions' in original)) delete out.permissions;
  }
  return out;
}

/** True when `settings` carries every part of `section` (the wall as computed is what the file says). */
export function carriesHardening(settings: JsonObject, section: HardeningSection): boolean {
  const sb = settings.sandbox;
  const ours = section.sandbox;
  if (ours === undefined) return isObject(settings.permissions) && section.deny.every((d) => strings((settings.permissions as JsonObject).deny).includes(d));
  if (!isObject(sb)) return false;
  if (sb.enabled !== true || sb.failIfUnavailable !== true || sb.allowUnsandboxedCommands !== false) return false;
  const has = (list: Json | undefined, want: readonly string[]) => want.every((w) => strings(list).includes(w));
  const fs = isObject(sb.filesystem) ? sb.filesystem : {};
  const perms = isObject(settings.permissions) ? settings.permissions : {};
  const excluded = strings(sb.excludedCommands);
  const env = isObject(settings.env) ? settings.env : {};
  if (Object.entries(section.env ?? {}).some(([k, v]) => env[k] !== v)) return false;
  return (
    has(fs.denyWrite, ours.filesystem.denyWrite) &&
    has(perms.deny, section.deny) &&
    excluded.length === ours.excludedCommands.length &&
    has(excluded, ours.excludedCommands)
  );
}
