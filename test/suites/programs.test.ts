/** The "programs" suite of test/support/suites.ts, in one process. */
import { runSuite } from '../support/suites.js';

await runSuite('programs');
