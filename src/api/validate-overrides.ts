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

const list = (overrides: Record<string, unknown>, field: string, validator: Validator): OverrideProblem[] => {
  const items = overrides[field];
  return Array.isArray(items) ? items.flatMap((item, i) => check(`spec.overrides.${field}[${i}]`, item, validator)) : [];
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
  ];
};
