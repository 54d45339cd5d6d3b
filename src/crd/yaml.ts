/** YAML output shared by the CRD generator and the render command. */
import { stringify } from 'yaml';

/** Header of every generated CRD file. */
export const GENERATED_HEADER = '# Generated from src/api by `npm run crds`. Do not edit by hand.\n';

/**
 * Serialises one document the way kubectl (go-yaml, YAML 1.1) reads it: no anchors, no folded lines,
 * and strings such as `on` or `yes` quoted.
 */
export const toYaml = (value: unknown): string => stringify(value, { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false });

/** The text of a generated CRD file. */
export const crdFile = (crd: unknown): string => `${GENERATED_HEADER}---\n${toYaml(crd)}`;
