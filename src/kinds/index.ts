/**
 * Every parent kind, one descriptor each (src/kinds/<kind>.ts). The hook routes, the metrics, the error
 * answers, the CRD generator, the CompositeController model, the render CLI, the bench and the test
 * emulator iterate this list; test/kinds/kinds.test.ts fails when a kind is missing from any of them.
 */
import type { ParentKind } from './descriptor.js';
import { IRONIC } from './ironic.js';
import { IRONIC_DATABASE } from './ironic-database.js';
import { IRONIC_IMAGE_CACHE } from './ironic-image-cache.js';

export type { ParentKind, UpdateStrategy } from './descriptor.js';

/** The parent kinds, in the order routes, CRDs and messages list them. */
export const PARENT_KINDS = [IRONIC, IRONIC_DATABASE, IRONIC_IMAGE_CACHE] as const;

/** The metric label of a parent kind: the union of the descriptors' labels. */
export type MetricLabel = (typeof PARENT_KINDS)[number]['metricLabel'];

/** The parent kinds in the order a round syncs them (by `syncOrder`: databases and image caches first). */
export const inSyncOrder = <K extends Pick<ParentKind, 'syncOrder'>>(kinds: readonly K[]): K[] => [...kinds].sort((a, b) => a.syncOrder - b.syncOrder);

/** Words joined as English lists them: `a`, `a and b`, `a, b and c` (or with `or`). */
export const wordList = (words: readonly string[], conjunction: 'and' | 'or' = 'and'): string =>
  words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} ${conjunction} ${words.at(-1) ?? ''}`;
