// @ts-check
/**
 * tap's coverage map (package.json "tap" "coverage-map"): whichever test file runs, coverage is
 * measured on src/ only, not on the test helpers and fixtures nor on scripts/.
 * @returns {string[]}
 */
export default () => ['src/**/*.ts'];
