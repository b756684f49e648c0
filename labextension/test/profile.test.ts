/**
 * What the profiler adds to the sidebar: the timeline's device lane
 * (`device` events, runs under XLA's profiler sent after `%%xjit --profile`,
 * marks in a lane under their function's own, titled with the kernels' time
 * and the costliest line) and each function's peak/temp memory.
 */
import { PanelModel } from '../src/model';
import { checkKernelMessage, IBatch, IEvent, IFunctionSummary, ILocation } from '../src/protocol';
import { lanes, renderTimeline } from '../src/timeline';
import { PanelView, fmtBytes } from '../src/view';

const loc: ILocation = { filename: '/tmp/ipykernel_1/5.py', lineno: 7, cell_id: 'c1', execution_count: 2 };

function ev(kind: IEvent['kind'], time: number, over: Partial<IEvent> = {}): IEvent {
  return { kind, time, fun_name: 'step', fun_id: 1, location: loc, duration_s: 0.01, reasons: [], details: {}, ...over };
}

const run = (end: number, span: number, busy: number): IEvent =>
  ev('device', end, { duration_s: span, details: { device_s: busy, note: '93% at 5.py:7 (loss): y = x @ w' } });

function batch(events: IEvent[]): IBatch {
  return { protocol: 'xjit/2', type: 'batch', seq: 1, events, executes: [], functions: [], dropped: 0 };
}

describe('device lane', () => {
  test('device events validate and become timeline items with their device time', () => {
    const msg = batch([ev('trace', 1), run(2, 0.004, 0.003), run(2.01, 0.004, 0.0035)]);
    expect(checkKernelMessage(msg)).toBeNull();
    expect(checkKernelMessage(batch([ev('device_run' as any, 2)]))).not.toBeNull();
    const m = new PanelModel();
    m.apply(msg);
    const device = m.timeline.filter(t => t.kind === 'device');
    expect(device.map(t => [t.start, t.end, t.duration_s])).toEqual([
      [2 - 0.004, 2, 0.003], [2.01 - 0.004, 2.01, 0.0035]
    ]);
    expect(device[0].note).toBe('93% at 5.py:7 (loss): y = x @ w');
  });

  test('a lane under its function, whole-height marks, a legend entry only when shown', () => {
    const m = new PanelModel();
    m.apply(batch([ev('trace', 1), ev('compile', 1.5, { fun_name: 'g', fun_id: 2 }), run(2, 0.004, 0.003)]));
    expect(lanes(m.timeline).map(l => l.label)).toEqual(['step', 'step device', 'g']);
    const svg = renderTimeline(m.timeline, { width: 300, rowHeight: 10, labelWidth: 50 });
    const mark = svg.querySelector('rect.xjit-mark-device')!;
    expect(Number(mark.getAttribute('y'))).toBe(12); // the second lane
    expect(Number(mark.getAttribute('height'))).toBe(6); // the lane's full height
    expect(mark.querySelector('title')!.textContent).toBe(
      'step: device, 3.0 ms (93% at 5.py:7 (loss): y = x @ w)');
    const legend = (s: SVGSVGElement) =>
      Array.from(s.querySelectorAll('.xjit-timeline-legend')).map(t => t.textContent);
    expect(legend(svg)).toContain('device');
    expect(legend(renderTimeline(m.timeline.filter(t => t.kind !== 'device')))).not.toContain('device');
  });

  test('a device lane whose function has no other marks stands alone', () => {
    const m = new PanelModel();
    m.apply(batch([run(2, 0.004, 0.003)]));
    expect(lanes(m.timeline).map(l => l.label)).toEqual(['step device']);
  });
});

describe('function memory', () => {
  const fn = (over: Partial<IFunctionSummary>): IFunctionSummary => ({
    fun_id: 1, name: 'step', location: loc, calls: 1, cache_hits: 0, cache_misses: 1,
    trace_s: 0.001, lower_s: 0.001, compile_s: 0.01, run_s: 0.0001, recompile_reasons: [], ...over
  });
  const render = (f: IFunctionSummary) => {
    const m = new PanelModel();
    const msg = { ...batch([]), functions: [f] };
    expect(checkKernelMessage(msg)).toBeNull();
    m.apply(msg);
    const noop = () => undefined;
    const view = new PanelView({
      selectFunction: noop, jumpTo: noop, runDebug: noop, debugInput: noop, continueBreakpoint: noop
    });
    view.render(m);
    return view.node;
  };

  test('peak and temp bytes show in the function row when known', () => {
    const node = render(fn({ peak_bytes: 3 * 1024 * 1024, temp_bytes: 512 }));
    const value = (cls: string) => node.querySelector(`.${cls} .xjit-stat-value`)!.textContent;
    expect(value('xjit-peak')).toBe('3.0MiB');
    expect(value('xjit-temp')).toBe('512B');
    expect(render(fn({})).querySelector('.xjit-memory')).toBeNull();
    expect(checkKernelMessage({ ...batch([]), functions: [fn({ peak_bytes: -1 })] })).not.toBeNull();
    expect(fmtBytes(1536)).toBe('1.5KiB');
  });
});

describe('per-device lanes', () => {
  const part = (end: number, device: number, busy: number): IEvent =>
    ev('device', end, { duration_s: 0.002, details: { device_s: busy, note: '', device } });

  test('a program over several devices gets a lane per device, in device order', () => {
    const msg = batch([ev('trace', 1), part(2, 3, 0.001), part(2, 0, 0.0015), part(2.5, 3, 0.001),
      ev('compile', 1.2, { fun_name: 'g', fun_id: 2 })]);
    expect(checkKernelMessage(msg)).toBeNull();
    const m = new PanelModel();
    m.apply(msg);
    expect(m.timeline.filter(t => t.kind === 'device').map(t => t.device)).toEqual([3, 0, 3]);
    const shown = lanes(m.timeline);
    expect(shown.map(l => l.label)).toEqual(['step', 'step device 0', 'step device 3', 'g']);
    expect(shown[2].items.map(t => t.end)).toEqual([2, 2.5]);
    const svg = renderTimeline(m.timeline, { width: 300, rowHeight: 10, labelWidth: 80 });
    expect(svg.querySelectorAll('rect.xjit-mark.xjit-mark-device').length).toBe(3); // and a legend swatch
    // a device lane's name is short (its function's lane is right above); its title is whole
    const names = Array.from(svg.querySelectorAll('text.xjit-lane-label')).map(t => t.firstChild!.textContent);
    expect(names.slice(1, 3)).toEqual(['  device 0', '  device 3']);
    expect(svg.querySelectorAll('text.xjit-lane-label title')[1].textContent).toBe('step device 0');
  });

  test('a device that is not a non-negative integer is rejected', () => {
    expect(checkKernelMessage(batch([part(2, -1, 0.001)]))).not.toBeNull();
    const noBusy = ev('device', 2, { details: { device: 1 } });
    expect(checkKernelMessage(batch([noBusy]))).not.toBeNull();
  });
});
