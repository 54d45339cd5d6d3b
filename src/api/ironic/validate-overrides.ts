/**
 * Checks the Kubernetes objects embedded in spec.overrides (containers, volumes, probes, tolerations)
 * against the upstream Kubernetes schemas, so a typo becomes a clear status message instead of a
 * Deployment the API server refuses. Pure and never throws.
 */
import { Container } from 'kubernetes-models/v1/Container';
import { Probe } from 'kubernetes-models/v1/Probe';
import { Toleration } from 'kubernetes-models/v1/Toleration';
import { Volume } from 'kubernetes-models/v1/Volume';

export type OverrideProblem = { readonly path: string; readonly message: string };

type Validator = (data: unknown) => void;

const validators: Record<'container' | 'volume' | 'probe' | 'toleration', Validator> = {
  container: (d) => new Container(d as ConstructorParameters<typeof Container>[0]).validate(),
  volume: (d) => new Volume(d as ConstructorParameters<typeof Volume>[0]).validate(),
  probe: (d) => new Probe(d as ConstructorParameters<typeof Probe>[0]).validate(),
  toleration: (d) => new Toleration(d as ConstructorParameters<typeof Toleration>[0]).validate(),
};

const check = (path: string, data: unknown, validator: Validator): OverrideProblem[] => {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return [{ path, message: `${path} must be an object` }];
  try {
    validator(data);
    return [];
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/\bdata\//g, '').replace(/\bdata\b/g, 'it') : 'is not valid';
    return [{ path, message: `${path} is not a valid Kubernetes object: ${detail}` }];
  }
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** What the API server checks beyond the schema: names are DNS labels, a container has an image. */
const apiServerRules = (field: string, item: unknown, path: string): OverrideProblem[] => {
  if (typeof item !== 'object' || item === null) return [];
  const { name, image } = item as { name?: unknown; image?: unknown };
  const problems: OverrideProblem[] = [];
  if (typeof name === 'string' && (name.length > 63 || !DNS_LABEL.test(name))) {
    problems.push({
      path: `${path}.name`,
      message: `${JSON.stringify(name.slice(0, 80))} is not a valid name: use at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit`,
    });
  }
  if (field.endsWith('ontainers') && (typeof image !== 'string' || image.trim() === '')) {
    problems.push({ path: `${path}.image`, message: 'a container needs an image: set image' });
  }
  return problems;
};

const list = (overrides: Record<string, unknown>, field: string, validator: Validator): OverrideProblem[] => {
  const items = overrides[field];
  if (!Array.isArray(items)) return [];
  return items.flatMap((item, i) => {
    const path = `spec.overrides.${field}[${i}]`;
    const shape = check(path, item, validator);
    return shape.length > 0 ? shape : apiServerRules(field, item, path);
  });
};

/** A label or annotation key: an optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
const keyProblem = (key: string): string | undefined => {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return "its prefix must be a DNS subdomain (lower-case letters, digits, '-' and '.')";
  if (name.length === 0 || name.length > 63 || !LABEL_NAME.test(name))
    return "its name must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit";
  return undefined;
};

/** Labels and annotations as the API server checks them: keys always, label values too (at most 63 characters). */
const mapProblems = (overrides: Record<string, unknown>, field: 'labels' | 'annotations'): OverrideProblem[] => {
  const map = overrides[field];
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return [];
  return Object.entries(map).flatMap(([key, value]): OverrideProblem[] => {
    const path = `spec.overrides.${field}[${JSON.stringify(key.slice(0, 80))}]`;
    const bad = keyProblem(key);
    if (bad !== undefined)
      return [{ path, message: `${JSON.stringify(key.slice(0, 80))} is not a valid ${field === 'labels' ? 'label' : 'annotation'} key: ${bad}` }];
    if (field === 'labels' && typeof value === 'string' && value !== '' && (value.length > 63 || !LABEL_NAME.test(value))) {
      return [
        {
          path,
          message: `the value of label ${JSON.stringify(key)} is not valid: use at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
        },
      ];
    }
    return [];
  });
};

export const validateOverrides = (spec: unknown): OverrideProblem[] => {
  const overrides = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>)['overrides'] : undefined;
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) return [];
  const o = overrides as Record<string, unknown>;
  const probe = (field: string): OverrideProblem[] => (o[field] === undefined ? [] : check(`spec.overrides.${field}`, o[field], validators.probe));
  return [
    ...list(o, 'containers', validators.container),
    ...list(o, 'initContainers', validators.container),
    ...list(o, 'volumes', validators.volume),
    ...list(o, 'tolerations', validators.toleration),
    ...probe('httpdLivenessProbe'),
    ...probe('httpdReadinessProbe'),
    ...mapProblems(o, 'labels'),
    ...mapProblems(o, 'annotations'),
  ];
};
