// Tells a URL the page's own Content Security Policy blocked (connect-src: http(s), ws(s), data:, blob:
// only; a Windows path or a mistyped scheme is refused by the browser before any request) from a network
// or CORS failure: both reject fetch() with the same TypeError, only a CSP refusal also fires a
// securitypolicyviolation event on the document.
import { CspBlocked } from './plain-error';

/** Run `job` (a fetch of `url`); when it fails and the page's CSP blocked a connection meanwhile, throw CspBlocked instead. */
export async function withCspWatch<T>(url: string, job: () => Promise<T>): Promise<T> {
  let blocked: SecurityPolicyViolationEvent | null = null;
  const on = (e: SecurityPolicyViolationEvent) => {
    if (e.effectiveDirective === 'connect-src' || e.violatedDirective.startsWith('connect-src')) blocked = e;
  };
  document.addEventListener('securitypolicyviolation', on);
  try {
    return await job();
  } catch (e) {
    // the violation event is queued as a task of its own: let it arrive
    if (!blocked) await new Promise((r) => setTimeout(r, 50));
    const v = blocked as SecurityPolicyViolationEvent | null;
    // (Chromium reports only the scheme of a cross-origin blocked URL: the message names the URL asked for)
    if (v) throw new CspBlocked(url, v.effectiveDirective || 'connect-src');
    throw e;
  } finally {
    document.removeEventListener('securitypolicyviolation', on);
  }
}
