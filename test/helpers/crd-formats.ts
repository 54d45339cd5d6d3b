/**
 * The string formats of the API server, for Ajv in crd-check.ts: ajv-formats' full formats, but `uri` as
 * the API server checks it (Go's url.ParseRequestURI), not as RFC 3986, which ajv-formats follows and
 * which refuses `http://a/x ` and `/abs/path` where the API server accepts them.
 * A module of its own because the validators that crd-check.ts keeps between processes (Ajv's standalone
 * code) require it by its path: they call these very functions, never a copy made when they were compiled.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { isRequestUri } from '../../src/api/shared/formats.js';

export const CRD_FORMATS = { ...fullFormats, uri: isRequestUri };
