/**
 * Validation of the specs of both custom resources. Each validator is pure and total: it returns the
 * problems (field path plus a message that says what is wrong and what to do) and never throws.
 */
export type { Problem } from './shared/problems.js';
export { validateIronic } from './ironic/validate.js';
export { validateIronicDatabase } from './ironic-database/validate.js';
export { validateIronicImageCache } from './ironic-image-cache/validate.js';
