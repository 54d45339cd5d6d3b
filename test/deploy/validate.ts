/**
 * Validation of every object deploy/ produces: built-in kinds through kubernetes-models (the shared
 * `validateK8s`, plus the kinds it does not know), CompositeControllers through our schema of
 * Metacontroller's API, admission policies through kubernetes-models and closed schemas of the upstream
 * API, and the Prometheus Operator ServiceMonitor through its upstream model and a closed schema of the
 * fields we use (so a misspelt field fails too). CRDs are left to test/crd.
 */
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { MutatingAdmissionPolicy } from 'kubernetes-models/admissionregistration.k8s.io/v1/MutatingAdmissionPolicy';
import { MutatingAdmissionPolicyBinding } from 'kubernetes-models/admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding';
import { ValidatingAdmissionPolicy } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';
import { ValidatingAdmissionPolicyBinding } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { validateK8s } from '../helpers/k8s.js';
import { compositeControllerErrors } from './composite-controller.js';
import { admissionPolicyErrors } from './admission-policy.js';
import type { Obj } from './kustomize.js';

const closed = Type.Object.bind(Type);

/** The part of monitoring.coreos.com/v1 ServiceMonitor that deploy/ uses; closed, so typos fail. */
const ServiceMonitor = closed(
  {
    apiVersion: Type.Literal('monitoring.coreos.com/v1'),
    kind: Type.Literal('ServiceMonitor'),
    metadata: closed(
      { name: Type.String(), namespace: Type.String(), labels: Type.Optional(Type.Record(Type.String(), Type.String())) },
      { additionalProperties: false },
    ),
    spec: closed(
      {
        selector: closed({ matchLabels: Type.Record(Type.String(), Type.String()) }, { additionalProperties: false }),
        endpoints: Type.Array(
          closed(
            { port: Type.String(), path: Type.String({ pattern: '^/' }), interval: Type.Optional(Type.String({ pattern: '^[0-9]+(ms|s|m|h)$' })) },
            { additionalProperties: false },
          ),
          { minItems: 1 },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const fail = (errors: string[]): void => {
  if (errors.length > 0) throw new Error(errors.join('\n'));
};

const extraModels: Record<string, (object: Obj) => void> = {
  'v1/Namespace': (o) => new Namespace(o).validate(),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o).validate(),
  'metacontroller.k8s.io/v1alpha1/CompositeController': (o) => fail(compositeControllerErrors(o)),
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': (o) => {
    new ValidatingAdmissionPolicy(o).validate();
    fail(admissionPolicyErrors(o));
  },
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': (o) => {
    // Its spec is required: the model's own guard (true for every object under this key) gives the type.
    if (!ValidatingAdmissionPolicyBinding.is(o)) throw new Error('not an admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding');
    new ValidatingAdmissionPolicyBinding(o).validate();
    fail(admissionPolicyErrors(o));
  },
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicy': (o) => {
    new MutatingAdmissionPolicy(o).validate();
    fail(admissionPolicyErrors(o));
  },
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding': (o) => {
    new MutatingAdmissionPolicyBinding(o).validate();
    fail(admissionPolicyErrors(o));
  },
  'monitoring.coreos.com/v1/ServiceMonitor': (o) => {
    validateK8s(o);
    fail([...Value.Errors(ServiceMonitor, o)].map((e) => `${e.path}: ${e.message}`));
  },
  // Also checked against the published CRD, and its PromQL parsed, by test/deploy/alerts.test.ts.
  'monitoring.coreos.com/v1/PrometheusRule': (o) => {
    if (!PrometheusRule.is(o)) throw new Error('not a monitoring.coreos.com/v1 PrometheusRule');
    new PrometheusRule(o).validate();
  },
  // Validated (and regenerated) by test/crd/crd.test.ts.
  'apiextensions.k8s.io/v1/CustomResourceDefinition': () => undefined,
};

/** Throws when `object` is not a valid instance of its kind, or of a kind nobody validates. */
export const validateDeployObject = (object: Obj): void => {
  const model = extraModels[`${String(object['apiVersion'])}/${String(object['kind'])}`];
  if (model !== undefined) model(object);
  else validateK8s(object);
};
