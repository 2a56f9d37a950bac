// What test/structure/words.node.test.ts looks for: words about how the project was made instead of what
// it is (numbered sessions, run marks: the letter s and one digit as a word, people), the pattern of the
// `grep -rIniE` that issue 27 names, read the same way (case-insensitive, per line, files with a NUL byte
// passed over as binary).

/** The pattern, case-insensitive; one letter of two alternatives in brackets (the same regex) so that this line does not match itself. */
export const WORK_WORDS = /\bsession [0-9]|\bs[0-9]\b|the lea[d]|engine[e]rs?\b/i;

/** A line that matches the pattern but is not about how the work was done: allowed by file, exact line and reason. */
export interface Allowed {
  /** path relative to the repository root, as git ls-files prints it */
  file: string;
  /** the whole line, leading and trailing white space trimmed (anchored: ^...$; a regex, so that the entry's own line in the test does not match the pattern) */
  line: RegExp;
  why: string;
}

export interface Hit {
  file: string;
  /** 1-based */
  lineNo: number;
  line: string;
}

/** The lines of `text` (the file `file`) that match WORK_WORDS; none for binary text (a NUL byte, as grep -I). */
export function workWordHits(file: string, text: string): Hit[] {
  if (text.includes('\0')) return [];
  const hits: Hit[] = [];
  text.split('\n').forEach((line, i) => {
    if (WORK_WORDS.test(line)) hits.push({ file, lineNo: i + 1, line });
  });
  return hits;
}

/** The hits no entry of `allowed` covers, and the entries that cover no hit (stale: the line changed or went). */
export function unexplained(hits: Hit[], allowed: readonly Allowed[]): { hits: Hit[]; stale: Allowed[] } {
  const covers = (a: Allowed, h: Hit) => a.file === h.file && a.line.test(h.line.trim());
  return { hits: hits.filter((h) => !allowed.some((a) => covers(a, h))), stale: allowed.filter((a) => !hits.some((h) => covers(a, h))) };
}
