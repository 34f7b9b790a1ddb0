/** The test files (relative to `root`, `/`-separated) split into the in-process and the built suite. */
export function testSuites(root: string): { unit: string[]; built: string[] };
