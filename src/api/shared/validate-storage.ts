/** The storage rules every kind with a data volume shares (IronicDatabase, IronicImageCache). */
import { describeValue, problem, type Problem } from './problems.js';
import { isPositive, parseQuantity } from './quantity.js';

type Storage = { readonly ephemeral?: boolean; readonly storageClassName?: string; readonly size?: string };

const storageClassNotEphemeral = (storage: Storage | undefined): Problem[] =>
  storage?.ephemeral === true && storage.storageClassName !== undefined && storage.storageClassName !== ''
    ? [
        problem(
          'spec.storage.storageClassName',
          'storageClassName cannot be used with ephemeral storage, which uses no volume: remove storageClassName, or set ephemeral to false',
        ),
      ]
    : [];

const sizePositive = (size: string | undefined, example: string): Problem[] => {
  if (size === undefined || size === '') return [];
  const quantity = parseQuantity(size);
  if (quantity === undefined) return [problem('spec.storage.size', `size ${describeValue(size)} is not a Kubernetes quantity: use a size such as ${example}`)];
  return isPositive(quantity)
    ? []
    : [problem('spec.storage.size', `size must be greater than zero, but it is ${describeValue(size)}: use a size such as ${example}`)];
};

/** Problems of `spec.storage`; `example` is the size the messages suggest. */
export const storageProblems = (storage: Storage | undefined, example: string): Problem[] => [
  ...storageClassNotEphemeral(storage),
  ...sizePositive(storage?.size, example),
];
