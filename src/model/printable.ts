// Names read from a file (zip entry names, pickle globals, state-dict keys) as they may appear in an error
// line: control characters and line breaks escaped as JSON does, so a hostile file cannot break the one
// line an error is, and at most `max` characters.
export function printable(s: string, max = 120): string {
  const t = s.length > max ? `${s.slice(0, max)}...` : s;
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(t) ? JSON.stringify(t).slice(1, -1) : t;
}
