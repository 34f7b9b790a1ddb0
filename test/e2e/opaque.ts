// Writers the static Bash check cannot see into, for the scenarios that prove the second wall
// (the integrity check and the PostToolUse restore) catches what the first one lets through.

/**
 * A JavaScript expression that yields `rel` only when the program runs: the text holds the path
 * reversed, so no literal in the program names it and no joining of pieces rebuilds it.
 */
export function runtimePath(rel: string): string {
  return `${JSON.stringify([...rel].reverse().join(''))}.split('').reverse().join('')`;
}
