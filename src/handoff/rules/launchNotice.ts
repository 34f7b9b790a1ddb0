/**
 * The text an Agent call returns when the child was started in the background (newer Claude Code
 * releases do that by default): a launch notice with an agent id, not the child's final message.
 * Handed to `result` or saved as a verdict it would be judged as a child that reported nothing.
 */
const LAUNCH = /\b(?:async agent launched|agent is (?:working|running) in the background)\b/iu;

export function isLaunchNotice(message: string): boolean {
  return LAUNCH.test(message) && !message.includes('```tdd-result');
}

export const LAUNCH_NOTICE_HELP =
  "this is the notice that the child was started in the background, not the child's final message. Nothing was recorded. Wait for the child's completion notification and pass the final message in it (its result) to `tdd-gate result`; dispatch roles with run_in_background: false";
