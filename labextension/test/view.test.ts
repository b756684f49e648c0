/**
 * Rendering: user strings appear as text (never parsed as HTML), clicks call
 * the right actions, the jaxpr lines map to equations.
 */
import { PanelModel } from '../src/model';
import { PanelView } from '../src/view';
import { actions } from './actions';
import { FOLD_RUN, JaxprView, ROW_HEIGHT, blocks } from '../src/jaxpr';
import { IEquation, ILocation } from '../src/protocol';
import { MAX_LANES, lanes, renderTimeline } from '../src/timeline';

const EVIL = '<img src=x onerror="window.__pwned=1">&amp;<script>window.__pwned=2</script>';
const loc = (line: number): ILocation => ({ filename: '/tmp/ipykernel_1/5.py', lineno: line, cell_id: 'cell-9', execution_count: 4 });

function model(): PanelModel {
  const m = new PanelModel();
  m.apply({ protocol: 'xjit/2', type: 'hello', xjit_version: EVIL });
  m.apply({
    protocol: 'xjit/2', type: 'batch', seq: 1, dropped: 0, executes: [],
    functions: [{
      fun_id: 3, name: EVIL, location: loc(1), calls: 51, cache_hits: 49, cache_misses: 2,
      trace_s: 0.0002, lower_s: 0.0001, compile_s: 0.05, run_s: 0.00002,
      recompile_reasons: [`different input shape at x: now f32[4] and before f32[3] ${EVIL}`]
    }],
    events: [{
      kind: 'nan', time: 5, fun_name: 'log', fun_id: 0, location: loc(3), duration_s: null, reasons: [],
      details: { primitive: 'log', message: `invalid value (nan) encountered in log ${EVIL}`, eqn: 'b:f32[2] = log a' }
    }]
  });
  m.apply({
    protocol: 'xjit/2', type: 'findings', fun_name: EVIL,
    findings: [{ kind: 'unrolled-loop', message: EVIL, suggestion: 'use lax.fori_loop', location: loc(6), fun_name: EVIL, count: 20 }]
  });
  return m;
}

describe('PanelView', () => {
  test('user strings are rendered as text only', () => {
    const view = new PanelView(actions());
    document.body.appendChild(view.node);
    view.render(model());
    expect(view.node.querySelector('img')).toBeNull();
    expect(view.node.querySelector('script')).toBeNull();
    expect((window as any).__pwned).toBeUndefined();
    expect(view.node.querySelector('.xjit-function-name')!.textContent).toBe(EVIL);
    expect(view.node.querySelector('.xjit-finding-message')!.textContent).toBe(EVIL);
    expect(view.node.querySelector('.xjit-status')!.textContent).toContain(EVIL);
    expect(view.node.querySelector('.xjit-nan-message')!.textContent).toContain(EVIL);
    expect(view.node.querySelector('.xjit-recompile-badge')!.getAttribute('title')).toContain(EVIL);
    view.node.remove();
  });

  test('functions show counts and a recompile badge; clicking selects', () => {
    const a = actions();
    const view = new PanelView(a);
    view.render(model());
    const row = view.node.querySelector('.xjit-function-row')!;
    expect(row.querySelector('.xjit-calls')!.getAttribute('data-value')).toBe('51');
    expect(row.querySelector('.xjit-hits .xjit-stat-value')!.textContent).toBe('49');
    expect(row.querySelector('.xjit-misses .xjit-stat-value')!.textContent).toBe('2');
    expect(row.querySelector('.xjit-recompile-badge')!.textContent).toBe('recompiled ×1');
    expect(row.querySelector('.xjit-reason')!.textContent).toContain('now f32[4] and before f32[3]');
    (row.querySelector('.xjit-function-name') as HTMLElement).click();
    expect(a.calls).toEqual([['select', 3]]);
  });

  test('a function over its recompile budget is flagged with the warning', () => {
    const view = new PanelView(actions());
    const m = model();
    const warning = `jit(f) recompiled 6 times (budget 5); the changing argument: x ${EVIL}`;
    m.apply({
      protocol: 'xjit/2', type: 'batch', seq: 2, dropped: 0, executes: [], events: [],
      functions: [{ ...m.functions.get(3)!, cache_misses: 7, budget_warning: warning,
        recompile_reasons: ['first reason', 'second reason'] }]
    });
    view.render(m);
    const row = view.node.querySelector('.xjit-function-row')!;
    expect(row.querySelector('.xjit-budget-badge')!.getAttribute('title')).toBe(warning);
    expect(row.querySelector('.xjit-budget-warning')!.textContent).toBe(warning);
    expect(row.querySelector('.xjit-reason')!.textContent).toBe('last recompile: second reason');
    expect(row.querySelector('.xjit-reason')!.getAttribute('title')).toBe('1. first reason\n2. second reason');
    expect(row.querySelector('img')).toBeNull();
  });

  test('findings are grouped by kind and jump to their line', () => {
    const a = actions();
    const view = new PanelView(a);
    view.render(model());
    const group = view.node.querySelector('.xjit-finding-group')!;
    expect(group.getAttribute('data-kind')).toBe('unrolled-loop');
    expect(group.querySelector('summary')!.textContent).toBe('unrolled-loop (1)');
    const link = group.querySelector('.xjit-finding-location') as HTMLButtonElement;
    expect(link.textContent).toBe('In [4], line 6');
    link.click();
    expect(a.calls).toEqual([['jump', loc(6)]]);
  });

  test('NaN report and the debug button; pdb prompt sends input', () => {
    const a = actions();
    const view = new PanelView(a);
    const m = model();
    view.render(m);
    expect(view.node.querySelector('.xjit-nan-eqn')!.textContent).toBe('b:f32[2] = log a');
    expect(view.node.querySelector('.xjit-nan-location')!.textContent).toBe('In [4], line 3');
    (view.node.querySelector('.xjit-debug-button') as HTMLButtonElement).click();
    expect(a.calls).toEqual([['debug']]);
    m.apply({ protocol: 'xjit/2', type: 'debug', status: 'started', message: '%debug' });
    m.debugPrompt('ipdb> ');
    view.render(m);
    expect((view.node.querySelector('.xjit-debug-button') as HTMLButtonElement).disabled).toBe(true);
    const input = view.node.querySelector('.xjit-debug-input') as HTMLInputElement;
    input.value = 'p x';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    expect(a.calls[1]).toEqual(['input', 'p x']);
  });

  test('a stopped breakpoint shows its frame and locals as text; Continue; continued clears it', () => {
    const a = actions();
    const view = new PanelView(a);
    const m = model();
    view.render(m);
    expect(view.node.querySelector('.xjit-breakpoint')).toBeNull();
    expect(view.node.querySelector('.xjit-section-breakpoint .xjit-empty')!.textContent).toContain(
      'xjit.debug.breakpoint()'
    );
    const bp = {
      protocol: 'xjit/2' as const, type: 'breakpoint' as const, status: 'stopped' as const,
      function: 'f', location: loc(6),
      locals: [{ name: 'y', repr: 'array([0., 0.], dtype=float32)' }, { name: 's', repr: EVIL }]
    };
    m.apply(bp);
    view.render(m);
    expect(view.node.querySelector('.xjit-breakpoint-function')!.textContent).toBe('f()');
    const where = view.node.querySelector('.xjit-breakpoint-location') as HTMLButtonElement;
    expect(where.textContent).toBe('In [4], line 6');
    const reprs = Array.from(view.node.querySelectorAll('.xjit-breakpoint-local')).map(r => [
      r.getAttribute('data-name'), r.querySelector('.xjit-breakpoint-repr')!.textContent]);
    expect(reprs).toEqual([['y', 'array([0., 0.], dtype=float32)'], ['s', EVIL]]);
    expect(view.node.querySelector('.xjit-breakpoint img, .xjit-breakpoint script')).toBeNull();
    where.click();
    (view.node.querySelector('.xjit-breakpoint-continue') as HTMLButtonElement).click();
    expect(a.calls).toEqual([['jump', loc(6)], ['continue']]);
    m.apply({ ...bp, status: 'continued', locals: [] });
    view.render(m);
    expect(m.breakpoint).toBeNull();
    expect(view.node.querySelector('.xjit-breakpoint')).toBeNull();
    m.apply(bp);
    m.reset('restarting');
    expect(m.breakpoint).toBeNull();
  });

  test('empty states point at %%xjit, never at internals', () => {
    const view = new PanelView(actions());
    const m = new PanelModel();
    m.apply({ protocol: 'xjit/2', type: 'hello', xjit_version: '1' });
    view.render(m);
    const empties = Array.from(view.node.querySelectorAll('.xjit-empty')).map(e => e.textContent || '');
    expect(empties[0]).toContain('%%xjit');
    expect(empties.join(' ')).not.toMatch(/xjit_kernel_ext|_src|inspect\./);
  });

  test('the selected jaxpr list survives later batches (scroll and folds kept)', () => {
    const view = new PanelView(actions());
    const m = model();
    m.select(3);
    m.apply({
      protocol: 'xjit/2', type: 'function', fun_id: 3, name: 'f', header: '{ lambda ; a:f32[]. let',
      footer: 'in (b,) }', sources: [loc(2)],
      equations: [{ index: 0, text: 'b:f32[] = sin a', primitive: 'sin', nested: false, source: 0 }]
    });
    view.render(m);
    const list = view.jaxprView;
    expect(list).not.toBeNull();
    expect(view.node.querySelector('.xjit-jaxpr-count')!.textContent).toBe(' · 1 equations');
    m.apply({ protocol: 'xjit/2', type: 'batch', seq: 2, dropped: 0, executes: [], functions: [], events: [] });
    view.render(m);
    expect(view.jaxprView).toBe(list);
  });

  test('the timeline is redrawn only when it changed (not on a selection)', () => {
    const view = new PanelView(actions());
    const m = model();
    view.render(m);
    const chart = view.node.querySelector('.xjit-section-timeline .xjit-section-body')!.firstChild;
    expect(chart).not.toBeNull();
    m.select(3);
    view.render(m);
    expect(view.node.querySelector('.xjit-section-timeline .xjit-section-body')!.firstChild).toBe(chart);
    const before = m.timelineVersion;
    m.apply({
      protocol: 'xjit/2', type: 'batch', seq: 2, dropped: 0, functions: [], events: [],
      executes: [{ fun_id: 3, fun_name: 'f', count: 2, first_time: 6, last_time: 7, total_s: 0.1, last_s: 0.05 }]
    });
    expect(m.timelineVersion).toBeGreaterThan(before);
    view.render(m);
    const redrawn = view.node.querySelector('.xjit-section-timeline .xjit-section-body')!.firstChild;
    expect(redrawn).not.toBe(chart);
    view.render(new PanelModel()); // another notebook's (empty) timeline
    expect(view.node.querySelector('.xjit-section-timeline .xjit-empty')).not.toBeNull();
  });

  test('status line for each connection state', () => {
    const view = new PanelView(actions());
    view.render(null);
    expect(view.node.querySelector('.xjit-status')!.getAttribute('data-status')).toBe('no-kernel');
    const m = new PanelModel();
    m.reset('waiting');
    view.render(m);
    expect(view.node.querySelector('.xjit-status')!.textContent).toContain('%load_ext xjit ');
    expect((view.node.querySelector('.xjit-debug-button') as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('JaxprView', () => {
  const outside: ILocation = { filename: '/usr/lib/x.py', lineno: 4, cell_id: null, execution_count: null };
  const eqn = (index: number, source: number | null, text = `v${index}:f32[] = sin u`): IEquation => ({
    index, text, primitive: 'sin', nested: text.includes('\n'), source
  });
  const data = (equations: IEquation[]) => ({
    header: '{ lambda ; a:f32[]. let', footer: 'in (z,) }', sources: [loc(2), loc(3), outside], equations
  });
  const texts = (v: JaxprView) =>
    Array.from(v.node.querySelectorAll('.xjit-jaxpr-row')).map(r => r.textContent);

  test('equations are clickable rows that jump to their line; other files are not', () => {
    const a = actions();
    const view = new JaxprView(data([eqn(0, 0), eqn(1, 1), eqn(2, 2), eqn(3, null)]), a);
    const rows = Array.from(view.node.querySelectorAll('.xjit-eqn')) as HTMLElement[];
    expect(rows.map(r => r.getAttribute('data-eqn-index'))).toEqual(['0', '1', '2', '3']);
    rows[1].click();
    rows[0].click();
    rows[2].click();
    rows[3].click();
    expect(a.calls).toEqual([['jump', loc(3)], ['jump', loc(2)]]);
    expect(rows[2].getAttribute('role')).toBeNull();
    expect(rows[2].getAttribute('title')).toContain('x.py:4');
    expect(texts(view)[0]).toBe('{ lambda ; a:f32[]. let');
    expect(texts(view)[5]).toBe('in (z,) }');
  });

  test('a run of more than FOLD_RUN equations from one line folds, and opens on click', () => {
    const eqns = [eqn(0, 0)];
    for (let i = 1; i <= 50; i++) {
      eqns.push(eqn(i, 1));
    }
    eqns.push(eqn(51, 0));
    expect(blocks(eqns).map(b => b.equations.length)).toEqual([1, 50, 1]);
    const view = new JaxprView(data(eqns), actions());
    expect(view.rows.length).toBe(5); // header, eqn, fold, eqn, footer
    const fold = view.node.querySelector('.xjit-jaxpr-fold') as HTMLElement;
    expect(fold.textContent).toBe('    ▸ 50 equations from In [4], line 3');
    fold.click();
    expect(view.rows.length).toBe(5 + 50);
    expect((view.node.querySelector('.xjit-jaxpr-fold') as HTMLElement).textContent).toContain('▾');
    const short = Array.from({ length: FOLD_RUN }, (_, i) => eqn(i, 1));
    expect(new JaxprView(data(short), actions()).rows.length).toBe(FOLD_RUN + 2);
  });

  test('an equation with a sub-jaxpr shows its first line and opens to all', () => {
    const nested = eqn(0, 0, 'b:f32[] = pjit[\n  name=g\n  jaxpr={ lambda ; c:f32[]. let  in (c,) }\n] a');
    const view = new JaxprView(data([nested]), actions());
    expect(texts(view)[1]).toBe('  ▸ b:f32[] = pjit[ …');
    (view.node.querySelector('.xjit-jaxpr-toggle') as HTMLElement).click();
    expect(texts(view).slice(1, 5)).toEqual([
      '  ▾ b:f32[] = pjit[', '      name=g', '      jaxpr={ lambda ; c:f32[]. let  in (c,) }', '    ] a'
    ]);
  });

  test('10,000 equations: every one is in the list, only a window is in the DOM', () => {
    const eqns: IEquation[] = [];
    for (let i = 0; i < 10000; i++) {
      eqns.push(eqn(i, i % 3 === 2 ? null : i % 2));
    }
    const t0 = Date.now();
    const view = new JaxprView(data(eqns), actions());
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(view.rows.length).toBe(10002);
    const spacer = view.node.querySelector('.xjit-jaxpr-spacer') as HTMLElement;
    expect(spacer.style.height).toBe(`${10002 * ROW_HEIGHT}px`);
    expect(view.node.querySelectorAll('.xjit-jaxpr-row').length).toBeLessThan(100);
    const user = EVIL;
    const evil = new JaxprView(data([eqn(0, 0, user)]), actions());
    expect(evil.node.querySelector('img')).toBeNull();
    expect(texts(evil)[1]).toBe('    ' + user);
  });
});

describe('renderTimeline', () => {
  const at = (t: number, name: string, id: number, kind: any = 'trace') =>
    ({ kind, fun_name: name, fun_id: id, start: t, end: t, count: 1, duration_s: 0 });

  test('one lane per function, named; marks placed by time with text titles', () => {
    const items = [
      { kind: 'trace' as const, fun_name: EVIL, fun_id: 1, start: 0, end: 1, count: 1, duration_s: 1 },
      { kind: 'execute' as const, fun_name: EVIL, fun_id: 1, start: 2, end: 10, count: 10000, duration_s: 0.5 },
      { kind: 'compile' as const, fun_name: 'g', fun_id: 2, start: 3, end: 4, count: 1, duration_s: 1 },
      { kind: 'nan' as const, fun_name: 'log', fun_id: 0, start: 10, end: 10, count: 1, duration_s: null }
    ];
    const svg = renderTimeline(items, { width: 300, rowHeight: 10, labelWidth: 50 });
    const lanes = Array.from(svg.querySelectorAll('.xjit-lane-label'));
    expect(lanes.map(l => l.querySelector('title')!.textContent)).toEqual([EVIL, 'g', 'NaN']);
    expect(lanes[1].childNodes[0].textContent).toBe('g');
    expect(lanes[0].childNodes[0].textContent!.endsWith('…')).toBe(true); // cut to the label width
    const rects = Array.from(svg.querySelectorAll('rect.xjit-mark'));
    expect(rects.map(r => r.getAttribute('class'))).toEqual([
      'xjit-mark xjit-mark-trace', 'xjit-mark xjit-mark-execute', 'xjit-mark xjit-mark-compile',
      'xjit-mark xjit-mark-nan'
    ]);
    expect(rects.map(r => Number(r.getAttribute('y')))).toEqual([2, 5, 12, 22]); // lanes; calls in the lower half
    expect(Number(rects[0].getAttribute('x'))).toBeCloseTo(50);
    expect(Number(rects[3].getAttribute('x'))).toBeCloseTo(296);
    expect(Number(rects[3].getAttribute('width'))).toBe(3);
    expect(rects[1].querySelector('title')!.textContent).toBe(`${EVIL}: 10000 call(s), 500.0 ms`);
    expect(svg.querySelector('img')).toBeNull();
    // a legend names every colour
    const legend = Array.from(svg.querySelectorAll('.xjit-timeline-legend')).map(t => t.textContent);
    expect(legend).toEqual(['trace', 'lower', 'compile', 'miss', 'run', 'NaN']);
    expect(svg.querySelectorAll('rect.xjit-legend').length).toBe(6);
  });

  test('only the most recently active functions get a lane', () => {
    const items = Array.from({ length: MAX_LANES + 3 }, (_, i) => at(i, `f${i}`, i + 1));
    expect(lanes(items).map(l => l.label)).toEqual(
      Array.from({ length: MAX_LANES }, (_, i) => `f${i + 3}`)
    );
    const svg = renderTimeline(items);
    expect(svg.querySelectorAll('.xjit-lane-label').length).toBe(MAX_LANES);
  });
});
