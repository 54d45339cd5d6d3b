/** Turning validation problems into one status message. */

export type PathProblem = { readonly path: string; readonly message: string };

const MAX_LISTED = 5;

/** `spec is invalid: <path>: <message>; …` with at most five problems listed. */
export const describeProblems = (problems: readonly PathProblem[]): string => {
  const listed = problems.slice(0, MAX_LISTED).map((p) => (p.message.startsWith(p.path) ? p.message : `${p.path}: ${p.message}`));
  const more = problems.length > MAX_LISTED ? ` (and ${problems.length - MAX_LISTED} more)` : '';
  return `the spec is invalid: ${listed.join('; ')}${more}`;
};
