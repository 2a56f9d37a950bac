// The README inside the page (imported as text at build time, so the links work offline and never
// point at a stale copy): a dialog with its sections as headings, prose reflowed, lists as lists, code
// and tables preformatted.
// Buttons with data-section open it at that section (the slug of a '## ' heading).
import readme from '../../README.md?raw';
import { h } from './dom';

export function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Inline Markdown of prose as nodes (no HTML parsing): **bold**, `code`, [text](link) as its text. */
function inline(text: string): (Node | string)[] {
  return text.split(/(\*\*[^*]+\*\*|`[^`]+`|\[[^\]]+\]\([^)\s]+\))/).map((part) => {
    if (/^\*\*[^*]+\*\*$/.test(part)) return h('b', {}, part.slice(2, -2));
    if (/^`[^`]+`$/.test(part)) return h('code', {}, part.slice(1, -1));
    const link = /^\[([^\]]+)\]\([^)\s]+\)$/.exec(part);
    return link ? link[1]! : part;
  });
}

/**
 * One block of README lines between headings as elements: prose paragraphs reflowed (the source wraps
 * at ~110 columns: kept as is, every line broke again mid-sentence on a phone) with their bold, code and
 * link text, list items as a list, fenced code, tables and raw HTML preformatted as written.
 */
function blockElements(lines: string[]): HTMLElement[] {
  const out: HTMLElement[] = [];
  let para: string[] = [];
  const flush = () => {
    const text = para.filter((l) => l.trim() !== '');
    para = [];
    if (!text.length) return;
    const first = text[0]!.trimStart();
    if (first.startsWith('|') || first.startsWith('<') || first.startsWith('![')) out.push(h('pre', {}, text.join('\n')));
    else if (/^(- |\d+\. )/.test(first)) {
      const items: string[] = [];
      for (const l of text) {
        const m = /^\s*(?:- |\d+\. )(.*)$/.exec(l);
        if (m) items.push(m[1]!);
        else items[items.length - 1] += ` ${l.trim()}`;
      }
      out.push(h(/^\d/.test(first) ? 'ol' : 'ul', {}, ...items.map((t) => h('li', {}, ...inline(t)))));
    } else out.push(h('p', {}, ...inline(text.map((l) => l.trim()).join(' '))));
  };
  let fence: string[] | null = null;
  for (const line of lines) {
    if (line.trimStart().startsWith('```')) {
      if (fence) {
        out.push(h('pre', {}, fence.join('\n')));
        fence = null;
      } else {
        flush();
        fence = [];
      }
    } else if (fence) fence.push(line);
    else if (line.trim() === '') flush();
    else para.push(line);
  }
  if (fence) out.push(h('pre', {}, fence.join('\n')));
  flush();
  return out;
}

function render(body: HTMLElement): void {
  if (body.childElementCount) return;
  let block: string[] = [];
  const flush = () => {
    body.append(...blockElements(block));
    block = [];
  };
  let inFence = false; // a '# comment' in a fenced shell block is no heading
  for (const line of readme.split('\n')) {
    if (line.trimStart().startsWith('```')) inFence = !inFence;
    const m = inFence ? null : /^(#{1,4}) (.*)$/.exec(line);
    if (m) {
      flush();
      body.append(h(m[1]!.length <= 2 ? 'h3' : 'h4', { id: `readme-${slug(m[2]!)}` }, m[2]!));
    } else block.push(line);
  }
  flush();
}

/** Wire every [data-section] button to open the dialog at its section. */
export function wireReadme(dialog: HTMLDialogElement, body: HTMLElement, close: HTMLElement): void {
  for (const b of document.querySelectorAll<HTMLElement>('[data-section]'))
    b.addEventListener('click', () => {
      render(body);
      dialog.showModal();
      const target = b.dataset.section ? body.querySelector(`#readme-${b.dataset.section}`) : null;
      if (target) target.scrollIntoView({ block: 'start' });
      else body.scrollTop = 0;
    });
  close.addEventListener('click', () => dialog.close());
}
