/** The "control-plane" suite of test/support/suites.ts, in one process (one real control plane for all its files). */
import { runSuite } from '../support/suites.js';

await runSuite('control-plane');
