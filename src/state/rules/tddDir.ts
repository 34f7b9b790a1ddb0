/** The folder under a project's root that holds tdd-gate's own files: the state, stack.json, runs, snapshots, events, plans. */
export const TDD_DIR = '.tdd';
