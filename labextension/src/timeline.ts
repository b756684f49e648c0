/**
 * The Timeline section: one SVG with a lane per jitted function (named on
 * the left) against wall-clock time, and a lane for NaN reports. In a lane,
 * the work on that function is drawn as marks coloured by kind (trace,
 * lower, compile, cache miss in the upper half; calls, aggregated into one
 * bar from first to last, in the lower half), each as long as the work took
 * and at least a few pixels wide. A legend names the colours. The most
 * recently active `MAX_LANES` functions are shown. A function profiled
 * with `%%xjit --profile` gets a device lane under its own: each run from
 * its first kernel's start to its last kernel's end (its title: the kernels'
 * summed time and the line that took most); a program over several devices
 * gets one such lane per device, in device order. Text (names, hover
 * titles) is set with `textContent`.
 */
import { ITimelineItem } from './model';

const SVG = 'http://www.w3.org/2000/svg';

export const KINDS: { kind: ITimelineItem['kind']; label: string }[] = [
  { kind: 'trace', label: 'trace' },
  { kind: 'lower', label: 'lower' },
  { kind: 'compile', label: 'compile' },
  { kind: 'cache_miss', label: 'miss' },
  { kind: 'execute', label: 'run' },
  { kind: 'nan', label: 'NaN' }
];

/** In the legend only while a device lane is shown. */
export const DEVICE_KIND = { kind: 'device' as const, label: 'device' };

export const MAX_LANES = 12;
const CHAR_W = 6; // px per character of a lane label (10px sans-serif, roughly)
const LEGEND_H = 16;

export interface ITimelineLayout {
  width: number;
  rowHeight: number;
  labelWidth: number;
}

export const DEFAULT_LAYOUT: ITimelineLayout = {
  width: 320,
  rowHeight: 16,
  labelWidth: 80
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

export function describe(item: ITimelineItem): string {
  const what = item.kind === 'execute' ? `${item.count} call(s)` : item.kind;
  const note = item.note ? ` (${item.note})` : '';
  return `${item.fun_name}: ${what}, ${fmtSeconds(item.duration_s)}${note}`;
}

interface ILane {
  key: string;
  label: string;
  short?: string; // drawn instead of the label (a device lane right under its function's)
  items: ITimelineItem[];
  last: number;
}

/** The function a lane belongs to (`f3`, `d3`, `d3:5` -> `3`). */
const funOf = (key: string) => key.slice(1).split(':')[0];

/** Items grouped into lanes: one per function, NaN reports in their own,
 * a function's device runs in a lane right under its own (one per device,
 * in device order, for a program over several devices). */
export function lanes(items: ITimelineItem[], max = MAX_LANES): ILane[] {
  const byKey = new Map<string, ILane>();
  for (const item of items) {
    const device = item.kind === 'device';
    const per = device && item.device !== undefined ? `:${item.device}` : '';
    const key = item.kind === 'nan' ? 'nan' : `${device ? 'd' : 'f'}${item.fun_id}${per}`;
    let lane = byKey.get(key);
    if (!lane) {
      const which = per ? `device ${item.device}` : 'device';
      const label = item.kind === 'nan' ? 'NaN' : device ? `${item.fun_name} ${which}` : item.fun_name;
      lane = { key, label, items: [], last: -Infinity, ...(per ? { short: `  ${which}` } : {}) };
      byKey.set(key, lane);
    }
    lane.items.push(item);
    lane.last = Math.max(lane.last, item.end);
  }
  const all = Array.from(byKey.values());
  const nan = all.filter(l => l.key === 'nan');
  // a device lane goes under its function's lane, or alone where that has none
  const alone = (l: ILane) => l.key[0] === 'd' && !byKey.has('f' + funOf(l.key));
  let fns = all.filter(l => l.key[0] === 'f' || alone(l));
  if (fns.length > max) {
    const keep = new Set(
      fns
        .slice()
        .sort((a, b) => b.last - a.last)
        .slice(0, max)
    );
    fns = fns.filter(l => keep.has(l));
  }
  const out: ILane[] = [];
  const deviceLanes = (fun: string) =>
    all
      .filter(l => l.key[0] === 'd' && funOf(l.key) === fun)
      .sort((a, b) => Number(a.key.split(':')[1] || -1) - Number(b.key.split(':')[1] || -1));
  for (const lane of fns) {
    out.push(lane);
    if (lane.key[0] === 'f') {
      out.push(...deviceLanes(funOf(lane.key)));
    }
  }
  return out.concat(nan);
}

function fit(label: string, px: number): string {
  const n = Math.max(1, Math.floor(px / CHAR_W));
  return label.length <= n ? label : label.slice(0, n - 1) + '…';
}

/** Render `items` as an SVG; time runs left to right over the items' span. */
export function renderTimeline(
  items: ITimelineItem[],
  layout: ITimelineLayout = DEFAULT_LAYOUT
): SVGSVGElement {
  const shown = lanes(items);
  const rows = Math.max(shown.length, 1);
  const legendY = rows * layout.rowHeight + 4;
  // legend swatches, wrapped to the width
  const legend: { kind: ITimelineItem['kind']; label: string; x: number; y: number }[] = [];
  let lx = layout.labelWidth;
  let ly = legendY;
  const hasDevice = shown.some(l => l.key[0] === 'd');
  for (const k of hasDevice ? [...KINDS, DEVICE_KIND] : KINDS) {
    const w = 12 + k.label.length * CHAR_W + 8;
    if (lx + w > layout.width && lx > layout.labelWidth) {
      lx = layout.labelWidth;
      ly += LEGEND_H;
    }
    legend.push({ ...k, x: lx, y: ly });
    lx += w;
  }
  const height = ly + LEGEND_H;
  const svg = el('svg', {
    class: 'xjit-timeline-svg',
    width: layout.width,
    height,
    viewBox: `0 0 ${layout.width} ${height}`,
    role: 'img'
  });
  const plotW = layout.width - layout.labelWidth - 4;
  const visible = shown.reduce((acc, l) => acc.concat(l.items), [] as ITimelineItem[]);
  const t0 = visible.length ? Math.min(...visible.map(it => it.start)) : 0;
  const t1 = visible.length ? Math.max(...visible.map(it => it.end)) : 1;
  const span = Math.max(t1 - t0, 1e-3);
  const x = (t: number) => layout.labelWidth + ((t - t0) / span) * plotW;
  const half = (layout.rowHeight - 4) / 2;
  shown.forEach((lane, i) => {
    const top = i * layout.rowHeight;
    const label = el('text', {
      x: 2,
      y: top + layout.rowHeight - 4,
      class: 'xjit-timeline-label xjit-lane-label'
    });
    label.textContent = fit(lane.short || lane.label, layout.labelWidth - 6);
    const full = el('title', {});
    full.textContent = lane.label;
    label.appendChild(full);
    svg.appendChild(label);
    svg.appendChild(
      el('line', {
        x1: layout.labelWidth,
        x2: layout.width,
        y1: top + layout.rowHeight,
        y2: top + layout.rowHeight,
        class: 'xjit-timeline-grid'
      })
    );
    for (const item of lane.items) {
      const x0 = x(item.start);
      const w = Math.max(x(item.end) - x0, 3);
      const lower = item.kind === 'execute';
      const whole = item.kind === 'nan' || item.kind === 'device';
      const rect = el('rect', {
        x: x0.toFixed(1),
        y: top + 2 + (lower ? half : 0),
        width: w.toFixed(1),
        height: whole ? 2 * half : half,
        class: `xjit-mark xjit-mark-${item.kind}`,
        'data-fun-name': item.fun_name
      });
      const title = el('title', {});
      title.textContent = describe(item);
      rect.appendChild(title);
      svg.appendChild(rect);
    }
  });
  for (const k of legend) {
    svg.appendChild(
      el('rect', { x: k.x, y: k.y + 3, width: 9, height: 9, class: `xjit-legend xjit-mark-${k.kind}` })
    );
    const text = el('text', { x: k.x + 12, y: k.y + 11, class: 'xjit-timeline-legend' });
    text.textContent = k.label;
    svg.appendChild(text);
  }
  const axis = el('text', {
    x: 2,
    y: legendY + 11,
    class: 'xjit-timeline-axis'
  });
  axis.textContent = visible.length ? `${span.toFixed(2)} s` : '';
  svg.appendChild(axis);
  return svg;
}
