/**
 * Validation of the specs of both custom resources. Each validator is pure and total: it returns the
 * problems (field path plus a message that says what is wrong and what to do) and never throws.
 */
export type { Problem } from './problems.js';
export { validateIronic } from './validate-ironic.js';
export { validateIronicDatabase } from './validate-database.js';
export { validateIronicImageCache } from './validate-image-cache.js';
