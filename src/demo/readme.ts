// The README inside the page (imported as text at build time, so the links work offline and never
// point at a stale copy): a dialog with its sections as headings and the rest as preformatted text.
// Buttons with data-section open it at that section (the slug of a '## ' heading).
import readme from '../../README.md?raw';
import { h } from './dom';

export function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function render(body: HTMLElement): void {
  if (body.childElementCount) return;
  let block: string[] = [];
  const flush = () => {
    if (block.join('').trim()) body.append(h('pre', {}, block.join('\n').trim()));
    block = [];
  };
  for (const line of readme.split('\n')) {
    const m = /^(#{1,4}) (.*)$/.exec(line);
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
