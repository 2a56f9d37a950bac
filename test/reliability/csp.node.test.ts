// The demo page's Content-Security-Policy (issue 13): present, no 'unsafe-eval' (nor 'wasm-unsafe-eval')
// anywhere, scripts only from the page's origin (no 'unsafe-inline' scripts), no plugins. The demo e2e
// suite (test/e2e/demo.node.test.ts) runs the page under it and fails on any console error, which is
// where a blocked script, worker or fetch would show.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const html = readFileSync(new URL('../../src/demo/index.html', import.meta.url), 'utf8');

describe('demo Content-Security-Policy', () => {
  const csp = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html)?.[1] ?? '';
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map((d) => [d[0]!, d.slice(1)]),
  );

  it('is set and never allows eval', () => {
    expect(csp, 'src/demo/index.html has no <meta http-equiv="Content-Security-Policy">').not.toBe('');
    expect(csp).not.toMatch(/unsafe-eval/);
  });

  it("runs scripts from the page's origin only and no plugins", () => {
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('default-src')).toEqual(["'self'"]);
  });
});
