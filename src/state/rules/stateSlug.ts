import { isAsciiAlnum } from './ascii.js';

/** DESIGN §2 slug: the branch with every character outside [A-Za-z0-9] as "-", cut to 80. */
export function stateSlug(branch: string): string {
  let slug = '';
  for (const ch of branch) slug += isAsciiAlnum(ch) ? ch : '-'; // by code point, as /[^A-Za-z0-9]/gu
  return slug.slice(0, 80);
}
