import manifest from '../../.claude-plugin/plugin.json' with { type: 'json' };

/** The plugin's version, from its manifest (the bundle inlines it): what `tdd-gate --version` prints. */
export const VERSION: string = manifest.version;
