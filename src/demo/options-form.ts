// The options form's rows, generated from the one schema (src/options/schema.ts): main.ts puts
// optionsFormHtml() into <form class="options"> of index.html (which holds only OPTIONS_FORM_MARK) before
// anything reads the form. Per demo option one row: its label (the schema's `demo`), its control (radios
// or a select with the schema's demo values, the demo default first and checked), the explanation slot
// (options.ts fills in the schema's help) and the note slot (options.ts: why a value is disabled). What
// is the page's and not the schema's lives here: the order of the rows, which go under "Advanced", radios
// or a select, a select's tooltip. Pure: no DOM (test/options/schema.node.test.ts checks the rows).
import { allowedValues } from '../options/check';
import { OPTION_KEYS, OPTIONS, spec, type OptionKey } from '../options/schema';

/** What src/demo/index.html's <form class="options"> holds: a pointer to where its rows come from. */
export const OPTIONS_FORM_MARK = '<!-- the option rows: optionsFormHtml() of src/demo/options-form.ts, from src/options/schema.ts (main.ts puts them here) -->';

interface Row {
  key: OptionKey;
  /** radios: every value visible (short lists); select: one line (values with 'auto' first or four values) */
  control: 'radios' | 'select' | 'number';
  /** a select's tooltip */
  title?: string;
  /** the row spans the card (many values) */
  wide?: true;
  /** values shown disabled until the page enables them (main.ts: 'file' when the latents carry stats) */
  disabled?: readonly string[];
  /** a value's label where it is not the value itself */
  labels?: Readonly<Record<string, string>>;
  /** HTML after the control, inside its span (norm: the chunk field) */
  inside?: string;
  /** HTML after the explanation (latent stats: the line saying what they apply) */
  after?: string;
}

const MAIN: readonly Row[] = [
  { key: 'cache', control: 'radios' },
  { key: 'precision', control: 'radios' },
  { key: 'weightsPrecision', control: 'select', title: 'storage of the conv weights on the GPU' },
  { key: 'weightsStream', control: 'select', title: 'keep the conv weights in CPU memory and stream them through a small GPU ring' },
  { key: 'backend', control: 'radios' },
  {
    key: 'latentStats',
    control: 'radios',
    disabled: ['file'],
    labels: { file: 'from file' },
    after: '<span class="applied" data-testid="stats-applied" aria-live="polite"></span>',
  },
];

const ADVANCED: readonly Row[] = [
  { key: 'tile', control: 'radios', wide: true },
  { key: 'tileMode', control: 'radios' },
  { key: 'tileOrder', control: 'radios' },
  { key: 'cacheOffload', control: 'select', title: "park the idle tiles' caches in CPU memory (frame-major tiles only)" },
  { key: 'tileStore', control: 'select', title: 'where the half-way result of every frame waits for the tiles (tile-major order only)' },
  {
    key: 'norm',
    control: 'select',
    title: "where each RMS norm's result lives",
    inside: `<label title="pixels per norm dispatch (norm chunked only)">chunk <input type="number" name="normChunk" min="${OPTIONS.normChunk.min}" step="1" data-testid="${kebab('normChunk')}" /> px</label>`,
  },
  { key: 'budget', control: 'number' },
];

/** The options inside another row's control (normChunk sits in the norm row). */
const INSIDE: readonly OptionKey[] = ['normChunk'];

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A value's label: the row's own, a tile grid as 2×2, else the value. */
function label(row: Row, v: string): string {
  return row.labels?.[v] ?? v.replace(/^(\d+)x(\d+)$/, '$1×$2');
}

/** The demo's values of a choice, the demo default first (checked / selected), then the schema's order. */
function values(key: OptionKey): { list: string[]; dflt: string } {
  const all = allowedValues(key, 'demo');
  if (!all) throw new Error(`demo options form: '${key}' has no list of values in the schema, so it cannot be radios or a select`);
  const s = spec(key) as { default: unknown; demoDefault?: string };
  const dflt = s.demoDefault ?? String(s.default);
  if (!all.includes(dflt)) throw new Error(`demo options form: '${key}' default '${dflt}' is not one of its values ${all.join('|')}`);
  return { list: [dflt, ...all.filter((v) => v !== dflt)], dflt };
}

function control(row: Row, name: string): string {
  const key = row.key;
  if (row.control === 'number') {
    const s = spec(key);
    if (s.kind !== 'number' && s.kind !== 'int') throw new Error(`demo options form: '${key}' is a ${s.kind} in the schema, not a number`);
    return `<label class="inline"><input type="number" name="${key}" min="1" step="any" placeholder="none" data-testid="${kebab(key)}" aria-labelledby="${name}" /> ${esc(s.unit)}</label>`;
  }
  const { list, dflt } = values(key);
  if (row.control === 'select') {
    const opts = list.map((v) => `<option value="${esc(v)}"${v === dflt ? ' selected' : ''}>${esc(label(row, v))}</option>`).join('');
    const title = row.title ? ` title="${esc(row.title)}"` : '';
    return `<span class="inline"><select name="${key}" data-testid="${kebab(key)}" aria-labelledby="${name}"${title}>${opts}</select>${row.inside ?? ''}</span>`;
  }
  const radios = list.map((v) => {
    const flags = `${v === dflt ? ' checked' : ''}${row.disabled?.includes(v) ? ' disabled' : ''}`;
    return `<label><input type="radio" name="${key}" value="${esc(v)}" data-testid="opt-${kebab(key)}-${esc(v)}"${flags} /> ${esc(label(row, v))}</label>`;
  });
  return `<span class="seg" role="radiogroup" aria-labelledby="${name}">${radios.join('')}${row.inside ?? ''}</span>`;
}

function rowHtml(row: Row): string {
  const name = `opt-${row.key}-name`;
  const demo = OPTIONS[row.key].demo;
  if (demo === null) throw new Error(`demo options form: '${row.key}' has no demo label in the schema (demo: null), so the form does not show it`);
  return [
    `<div class="opt${row.wide ? ' wide' : ''}">`,
    `<span class="name" id="${name}">${esc(demo)}</span>`,
    control(row, name),
    `<span class="explain" data-explain="${row.key}"></span>`,
    row.after ?? '',
    `<span class="note" data-note="${row.key}"></span>`,
    '</div>',
  ].join('');
}

/**
 * The rows of the options form: the main switches, then the memory levers under "Advanced". Throws when
 * a demo option of the schema has no row (a new option with a demo label needs its place here) or a row
 * names an option twice.
 */
export function optionsFormHtml(): string {
  const rows = [...MAIN, ...ADVANCED];
  const placed = [...rows.map((r) => r.key), ...INSIDE];
  for (const key of OPTION_KEYS) {
    const n = placed.filter((k) => k === key).length;
    if (OPTIONS[key].demo !== null && n === 0) throw new Error(`demo options form: option '${key}' has a demo label but no row in src/demo/options-form.ts`);
    if (n > 1) throw new Error(`demo options form: option '${key}' has ${n} rows in src/demo/options-form.ts`);
  }
  return [...MAIN.map(rowHtml), '<details class="advanced" data-testid="advanced">', '<summary>Advanced: memory levers (tiles, norm, budget)</summary>', ...ADVANCED.map(rowHtml), '</details>'].join(
    '\n',
  );
}
