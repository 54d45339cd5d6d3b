/**
 * The HTTP(S) proxy settings an Ironic and an IronicImageCache share: the CRD's rules on a proxy object and the
 * hooks' check of the same (a spec that reaches a hook without the API server is checked as the API server would).
 */
import { describeValue } from './schema-messages.js';
import { listEntries } from './fields.js';
import { problem, type Problem } from './problems.js';

/** CEL and validation: a proxy URL is http(s)://host..., in any letter case. */
export const PROXY_URL_PATTERN = '^[hH][tT][tT][pP][sS]?://[^/?#\\s]+([/?#].*)?$';

/** CEL, on a proxy object: its URLs are http(s)://host... (IronicImageCache uses it too). */
export const PROXY_URL_RULE = {
  rule: `[has(self.httpProxy) ? self.httpProxy : '', has(self.httpsProxy) ? self.httpsProxy : ''].all(u, u == '' || u.matches('${PROXY_URL_PATTERN.replaceAll('\\', '\\\\')}'))`,
  message: 'httpProxy and httpsProxy must be http or https URLs with a host, such as http://proxy.example.com:3128',
};

/** CEL and validation: a URL with a user name or password (`scheme://user:pass@host`). */
export const URL_USERINFO_PATTERN = '^[^/?#]*://[^/?#]*@';

/** Why proxy URLs may not carry credentials, for messages. */
export const PROXY_CREDENTIALS_REASON =
  'they would be written in plain text into the pod specs, which anyone who can read pods sees; allow the Ironic nodes at the proxy by address, or point spec.proxy at a forwarding proxy that adds the credentials';

/** CEL, on a proxy object: no credentials in its URLs. */
export const PROXY_CREDENTIALS_RULE = {
  rule: `[has(self.httpProxy) ? self.httpProxy : '', has(self.httpsProxy) ? self.httpsProxy : ''].all(u, !u.matches('${URL_USERINFO_PATTERN}'))`,
  message: `httpProxy and httpsProxy must not contain a user name or password: ${PROXY_CREDENTIALS_REASON}`,
};

const PROXY_URL = new RegExp(PROXY_URL_PATTERN);
const NO_PROXY_ENTRY = /^[A-Za-z0-9.:*/_[\]-]+$/;

const URL_USERINFO = new RegExp(URL_USERINFO_PATTERN);

/** Problems of a proxy URL; a value that may hold a password is never repeated in a message (status is public). */
const proxyURLProblems = (field: 'httpProxy' | 'httpsProxy', value: string | undefined): Problem[] => {
  if (value === undefined || value === '') return [];
  const shown = value.includes('@') ? 'the value' : describeValue(value);
  return [
    ...(PROXY_URL.test(value)
      ? []
      : [problem(`spec.proxy.${field}`, `${shown} is not a proxy URL: write it as http://host:port or https://host:port (http or https, a host, no spaces)`)]),
    ...(URL_USERINFO.test(value)
      ? [problem(`spec.proxy.${field}`, `${field} has a user name or password, which is not supported: ${PROXY_CREDENTIALS_REASON}`)]
      : []),
  ];
};

/**
 * The problems of a proxy object (spec.proxy of an Ironic or an IronicImageCache). Beyond upstream (which has
 * no proxy settings). noProxy entries: host names, domains, IPs, CIDRs or `*`.
 */
export const proxyProblems = (proxy: { readonly httpProxy?: string; readonly httpsProxy?: string; readonly noProxy?: string } | undefined): Problem[] => {
  if (proxy === undefined) return [];
  const badEntries = listEntries(proxy.noProxy).filter((e) => !NO_PROXY_ENTRY.test(e));
  return [
    ...proxyURLProblems('httpProxy', proxy.httpProxy),
    ...proxyURLProblems('httpsProxy', proxy.httpsProxy),
    ...(badEntries.length > 0
      ? [
          problem(
            'spec.proxy.noProxy',
            `${describeValue(badEntries[0])} is not a host name, domain, IP address or CIDR: separate the entries with commas, for example .example.com,192.0.2.0/24`,
          ),
        ]
      : []),
  ];
};
