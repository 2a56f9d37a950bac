// DOM helpers of the demo: elements by their stable data-testid, and small text/visibility setters.

/** The element with `data-testid="id"`; throws when the page lacks it (a broken page should fail loudly). */
export function byTestId<T extends HTMLElement = HTMLElement>(id: string, root: ParentNode = document): T {
  const el = root.querySelector<T>(`[data-testid="${id}"]`);
  if (!el) throw new Error(`demo: no element with data-testid="${id}"`);
  return el;
}

/** Show `text` in `el`, or hide `el` when text is empty. */
export function showText(el: HTMLElement, text: string): void {
  el.textContent = text;
  el.hidden = text === '';
}

/** Create an element with attributes and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Create an SVG element with attributes. */
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}
