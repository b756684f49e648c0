/**
 * The Timeline section: one SVG, a row per kind of work (trace, lower,
 * compile, run, cache miss, NaN) against wall-clock time. Each mark is a
 * rectangle as long as the work took (at least a few pixels wide so short
 * events stay visible); aggregated calls are one bar from first to last call.
 * Each mark is labelled with its function's name where the row has room
 * (the hover text has the details). Text is set with `textContent`.
 */
import { ITimelineItem } from './model';

const SVG = 'http://www.w3.org/2000/svg';

export const ROWS: { kind: ITimelineItem['kind']; label: string }[] = [
  { kind: 'trace', label: 'trace' },
  { kind: 'lower', label: 'lower' },
  { kind: 'compile', label: 'compile' },
  { kind: 'execute', label: 'run' },
  { kind: 'cache_miss', label: 'miss' },
  { kind: 'nan', label: 'NaN' }
];

export interface ITimelineLayout {
  width: number;
  rowHeight: number;
  labelWidth: number;
}

export const DEFAULT_LAYOUT: ITimelineLayout = {
  width: 320,
  rowHeight: 16,
  labelWidth: 56
};

function el<K extends keyof SVGElementTagNameMap>(
  name: K,
  attrs: { [key: string]: string | number }
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, name);
  for (const key of Object.keys(attrs)) {
    node.setAttribute(key, String(attrs[key]));
  }
  return node;
}

function fmtSeconds(s: number | null): string {
  if (s === null || s === undefined) {
    return '?';
  }
  if (s < 1e-3) {
    return `${(s * 1e6).toFixed(0)} µs`;
  }
  if (s < 1) {
    return `${(s * 1e3).toFixed(1)} ms`;
  }
  return `${s.toFixed(2)} s`;
}

const CHAR_W = 6; // px per character of a mark label (10px sans-serif, roughly)

/** The short label drawn next to a mark: the function, and the call count. */
export function markLabel(item: ITimelineItem): string {
  return item.kind === 'execute' && item.count > 1 ? `${item.fun_name} ×${item.count}` : item.fun_name;
}

export function describe(item: ITimelineItem): string {
  const what = item.kind === 'execute' ? `${item.count} call(s)` : item.kind;
  return `${item.fun_name}: ${what}, ${fmtSeconds(item.duration_s)}`;
}

/** Render `items` as an SVG; time runs left to right over the items' span. */
export function renderTimeline(
  items: ITimelineItem[],
  layout: ITimelineLayout = DEFAULT_LAYOUT
): SVGSVGElement {
  const height = ROWS.length * layout.rowHeight + 14;
  const svg = el('svg', {
    class: 'xjit-timeline-svg',
    width: layout.width,
    height,
    viewBox: `0 0 ${layout.width} ${height}`,
    role: 'img'
  });
  const plotW = layout.width - layout.labelWidth - 4;
  ROWS.forEach((row, i) => {
    const label = el('text', {
      x: 2,
      y: i * layout.rowHeight + layout.rowHeight - 4,
      class: 'xjit-timeline-label'
    });
    label.textContent = row.label;
    svg.appendChild(label);
    svg.appendChild(
      el('line', {
        x1: layout.labelWidth,
        x2: layout.width,
        y1: (i + 1) * layout.rowHeight,
        y2: (i + 1) * layout.rowHeight,
        class: 'xjit-timeline-grid'
      })
    );
  });
  if (items.length === 0) {
    return svg;
  }
  const t0 = Math.min(...items.map(it => it.start));
  const t1 = Math.max(...items.map(it => it.end));
  const span = Math.max(t1 - t0, 1e-3);
  const x = (t: number) => layout.labelWidth + ((t - t0) / span) * plotW;
  // marks first, then one label per mark (its function's name) where it
  // fits without covering another mark or label of its row
  const marks: { item: ITimelineItem; row: number; x0: number; w: number }[] = [];
  for (const item of items) {
    const row = ROWS.findIndex(r => r.kind === item.kind);
    if (row < 0) {
      continue;
    }
    const x0 = x(item.start);
    const w = Math.max(x(item.end) - x0, 3);
    const rect = el('rect', {
      x: x0.toFixed(1),
      y: row * layout.rowHeight + 3,
      width: w.toFixed(1),
      height: layout.rowHeight - 6,
      class: `xjit-mark xjit-mark-${item.kind}`,
      'data-fun-name': item.fun_name
    });
    const title = el('title', {});
    title.textContent = describe(item);
    rect.appendChild(title);
    svg.appendChild(rect);
    marks.push({ item, row, x0, w });
  }
  marks.sort((a, b) => a.row - b.row || a.x0 - b.x0);
  const taken: [number, number][][] = ROWS.map(() => []); // occupied x-ranges per row
  for (const m of marks) {
    taken[m.row].push([m.x0, m.x0 + m.w]);
  }
  // neighbouring marks of one function in a row share one label
  const clusters: { row: number; x0: number; x1: number; item: ITimelineItem; n: number; k: number }[] = [];
  for (const m of marks) {
    const last = clusters[clusters.length - 1];
    const label = markLabel(m.item).length * CHAR_W;
    if (last && last.row === m.row && last.item.fun_name === m.item.fun_name && m.x0 - last.x1 < label + 4) {
      last.x1 = Math.max(last.x1, m.x0 + m.w);
      last.n += m.item.count;
      last.k += 1;
      continue;
    }
    clusters.push({ row: m.row, x0: m.x0, x1: m.x0 + m.w, item: m.item, n: m.item.count, k: 1 });
  }
  const free = (row: number, from: number, to: number, own: [number, number]) =>
    from >= layout.labelWidth &&
    to <= layout.width &&
    taken[row].every(([a, b]) => (a >= own[0] && b <= own[1]) || b <= from || a >= to);
  for (const c of clusters) {
    const text = markLabel({ ...c.item, count: c.n });
    const width = text.length * CHAR_W;
    const own: [number, number] = [c.x0, c.x1];
    // inside a wide mark, else right of the marks, else left of them
    let lx: number | null = null;
    let inside = false;
    if (c.k === 1 && c.x1 - c.x0 >= width + 4 && free(c.row, c.x0 + 2, c.x0 + 2 + width, own)) {
      lx = c.x0 + 2;
      inside = true;
    } else if (free(c.row, c.x1 + 2, c.x1 + 2 + width, own)) {
      lx = c.x1 + 2;
    } else if (free(c.row, c.x0 - width - 2, c.x0 - 2, own)) {
      lx = c.x0 - width - 2;
    }
    if (lx === null) {
      continue;
    }
    const label = el('text', {
      x: lx.toFixed(1),
      y: c.row * layout.rowHeight + layout.rowHeight - 4,
      class: inside ? 'xjit-mark-label xjit-mark-label-inside' : 'xjit-mark-label'
    });
    label.textContent = text;
    svg.appendChild(label);
    taken[c.row].push([lx, lx + width + 2]);
  }
  const axis = el('text', {
    x: layout.labelWidth,
    y: height - 2,
    class: 'xjit-timeline-axis'
  });
  axis.textContent = `${span.toFixed(2)} s shown`;
  svg.appendChild(axis);
  return svg;
}
