/**
 * Compute resources by container name, as the kinds whose pods the hooks render declare them (`spec.resources`).
 */
import { Type, type Static, type TRecord, type TString } from '@sinclair/typebox';
import { QuantityMap } from './common.js';

export const ContainerResources = Type.Object(
  {
    limits: Type.Optional(QuantityMap('Maximum amount of compute resources allowed, for example `memory: 2Gi`. None by default.')),
    requests: Type.Optional(
      QuantityMap('Minimum amount of compute resources required, for example `cpu: 500m`. Replaces the default of the same resource; the others are kept.'),
    ),
  },
  {
    // NOTE: no CEL rule for "a request is not more than its limit": the values are int-or-string, which the
    // API server's cost estimate takes as strings of up to the request size (3 MiB), so a rule that compares
    // them as quantities in every container exceeds the CRD cost budget by 52 times (16 for an image cache)
    // and the CRD is refused. The hook reports it (Ready=False naming the field, children kept).
    description: 'Compute resources of one container (core/v1 ResourceRequirements). A request above its limit is reported by the Ready condition.',
  },
);
export type ContainerResources = Static<typeof ContainerResources>;

/** `spec.resources` of a kind whose pods run the containers `names`: ContainerResources by container name. */
export const resourcesByContainer = (names: readonly string[], description: string): TRecord<TString, typeof ContainerResources> =>
  Type.Record(Type.String(), ContainerResources, {
    description,
    maxProperties: names.length,
    'x-kubernetes-validations': [
      {
        rule: `self.all(name, name in [${names.map((n) => `'${n}'`).join(', ')}])`,
        message: `resources are set by container name: use ${names.join(', ')}`,
      },
    ],
  });
