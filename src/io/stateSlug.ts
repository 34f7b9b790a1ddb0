/** DESIGN §2 slug: the branch with every character outside [A-Za-z0-9] as "-", cut to 80. */
export function stateSlug(branch: string): string {
  return branch.replace(/[^A-Za-z0-9]/gu, '-').slice(0, 80);
}
