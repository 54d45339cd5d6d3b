/**
 * The list of an Ironic's features, made from the modules of features/: each module holds one feature
 * record, and the list is in the records' `order`. The hook server reads the directory (src/hooks/
 * ironic-features.ts); this part only checks and orders what it found, so a new feature edits no list.
 */
import { isRecord } from '../../api/shared/problems.js';
import type { IronicFeature } from './feature.js';

/** A module of features/: its file name and what it exports. */
export type FeatureModule = { readonly file: string; readonly exports: Readonly<Record<string, unknown>> };

/** Whether an export is a feature record (the members every record has). */
const isFeature = (value: unknown): value is IronicFeature =>
  isRecord(value) && typeof value['name'] === 'string' && typeof value['applies'] === 'function' && typeof value['order'] === 'number';

/** The one feature record of a module, or why it has not exactly one. */
const recordOf = (module: FeatureModule): IronicFeature | string => {
  const found = Object.entries(module.exports).flatMap(([key, value]) => (isFeature(value) ? [{ key, feature: value }] : []));
  const [only] = found;
  if (found.length === 1 && only !== undefined) return only.feature;
  return found.length === 0
    ? `${module.file} exports no feature record (an object with name, order and applies)`
    : `${module.file} exports ${found.length} feature records (${found.map((f) => f.key).join(', ')}): a file holds one feature`;
};

/** Names or orders held by more than one record, each as `order 10 is held by 2 features (a, b)`. */
const clashes = (features: readonly IronicFeature[], what: 'name' | 'order'): string[] => {
  const by = new Map<string, string[]>();
  for (const f of features) by.set(String(f[what]), [...(by.get(String(f[what])) ?? []), f.name]);
  return [...by]
    .filter(([, holders]) => holders.length > 1)
    .map(([value, holders]) => `${what} ${what === 'name' ? JSON.stringify(value) : value} is held by ${holders.length} features (${holders.join(', ')})`);
};

/**
 * The features in `order`. Throws, naming every file or record at fault, when a module holds no record or
 * more than one, or when two records share a name or an order (the hook server then refuses to start).
 */
export const featureList = (modules: readonly FeatureModule[]): IronicFeature[] => {
  const records = modules.map(recordOf);
  const features = records.filter((r): r is IronicFeature => typeof r !== 'string');
  const problems = [
    ...records.filter((r): r is string => typeof r === 'string'),
    ...features.filter((f) => !Number.isSafeInteger(f.order)).map((f) => `${f.name}'s order ${f.order} is not a whole number`),
    ...clashes(features, 'name'),
    ...clashes(features, 'order'),
  ];
  if (problems.length > 0) throw new Error(`The Ironic features cannot be listed: ${problems.join('; ')}`);
  return [...features].sort((a, b) => a.order - b.order);
};
