/**
 * The database Ironic uses (spec.database or spec.databaseName): its credentials and CA, mounted where
 * ironic-image reads them (volumes.ts); a rotated password rolls the pods. The connection settings are
 * the ironic container's own variables.
 */
import { versionAnnotation } from '../../names.js';
import type { IronicFeature } from '../feature.js';
import { databaseAuthVolume, databaseCAVolume } from '../volumes.js';

export const DATABASE: IronicFeature = {
  name: 'database',
  order: 40,
  applies: () => true,
  volumes: (input) => {
    const db = input.references.database;
    return db !== undefined ? [databaseAuthVolume(db), ...databaseCAVolume(db)] : [];
  },
  annotations: (input) => {
    const hash = input.references.database?.credentialsHash;
    return hash !== undefined ? { [versionAnnotation('database-secret')]: hash } : {};
  },
};
