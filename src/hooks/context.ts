/** What the hooks need besides the request: configuration, randomness and the clock. */
import type { RenderConfig } from '../render/config.js';
import type { Secrets } from './materialize.js';

export type HookContext = {
  readonly config: RenderConfig;
  readonly secrets: Secrets;
  /** The current time as RFC 3339 (seconds). Only used for a condition whose status changes. */
  readonly now: () => string;
};
