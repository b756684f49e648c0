/**
 * Rendering: user strings appear as text (never parsed as HTML), clicks call
 * the right actions, the jaxpr lines map to equations.
 */
import { PanelModel } from '../src/model';
import { IActions, PanelView, renderJaxpr } from '../src/view';
import { ILocation } from '../src/protocol';
import { renderTimeline } from '../src/timeline';

const EVIL = '<img src=x onerror="window.__pwned=1">&amp;<script>window.__pwned=2</script>';
const loc = (line: number): ILocation => ({ filename: '/tmp/ipykernel_1/5.py', lineno: line, cell_id: 'cell-9', execution_count: 4 });

function actions(): IActions & { calls: any[] } {
  const calls: any[] = [];
  return {
    calls,
    selectFunction: id => calls.push(['select', id]),
    jumpTo: l => calls.push(['jump', l]),
    runDebug: () => calls.push(['debug']),
    debugInput: t => calls.push(['input', t])
  };
}

function model(): PanelModel {
  const m = new PanelModel();
  m.apply({ protocol: 'xjit/1', type: 'hello', xjit_version: EVIL });
  m.apply({
    protocol: 'xjit/1', type: 'batch', seq: 1, dropped: 0, executes: [],
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
    protocol: 'xjit/1', type: 'findings', fun_name: EVIL,
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
    m.apply({ protocol: 'xjit/1', type: 'debug', status: 'started', message: '%debug' });
    m.debugPrompt('ipdb> ');
    view.render(m);
    expect((view.node.querySelector('.xjit-debug-button') as HTMLButtonElement).disabled).toBe(true);
    const input = view.node.querySelector('.xjit-debug-input') as HTMLInputElement;
    input.value = 'p x';
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));
    expect(a.calls[1]).toEqual(['input', 'p x']);
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

describe('renderJaxpr', () => {
  const text = '{ lambda ; a:f32[3]. let\n    b:f32[3] = jit[\n      name=g\n    ] a\n    c:f32[3] = sin b\n  in (c,) }';
  const eqns = [
    { index: 0, text_line: 1, location: loc(2) },
    { index: 1, text_line: 4, location: loc(3) }
  ];

  test('equation lines (with continuations) are clickable and jump', () => {
    const a = actions();
    const pre = renderJaxpr(text, eqns, a);
    const lines = Array.from(pre.querySelectorAll('.xjit-jaxpr-line'));
    expect(lines.map(l => l.textContent)).toEqual(text.split('\n'));
    expect(lines.map(l => l.getAttribute('data-eqn-index'))).toEqual([null, '0', '0', '0', '1', null]);
    (lines[4] as HTMLElement).click();
    (lines[2] as HTMLElement).click();
    expect(a.calls).toEqual([['jump', loc(3)], ['jump', loc(2)]]);
  });

  test('equations from files outside the notebook are not clickable', () => {
    const a = actions();
    const outside = { filename: '/usr/lib/x.py', lineno: 4, cell_id: null, execution_count: null };
    const pre = renderJaxpr(text, [{ index: 0, text_line: 1, location: outside }], a);
    const line = pre.querySelectorAll('.xjit-jaxpr-line')[1] as HTMLElement;
    expect(line.getAttribute('role')).toBeNull();
    expect(line.getAttribute('title')).toContain('x.py:4');
    line.click();
    expect(a.calls).toEqual([]);
  });
});

describe('renderTimeline', () => {
  test('one row per kind; marks placed by time with text titles', () => {
    const items = [
      { kind: 'trace' as const, fun_name: EVIL, fun_id: 1, start: 0, end: 1, count: 1, duration_s: 1 },
      { kind: 'execute' as const, fun_name: 'f', fun_id: 1, start: 2, end: 10, count: 10000, duration_s: 0.5 },
      { kind: 'nan' as const, fun_name: 'log', fun_id: 0, start: 10, end: 10, count: 1, duration_s: null }
    ];
    const svg = renderTimeline(items, { width: 300, rowHeight: 10, labelWidth: 50 });
    const rects = Array.from(svg.querySelectorAll('rect'));
    expect(rects.map(r => r.getAttribute('class'))).toEqual([
      'xjit-mark xjit-mark-trace', 'xjit-mark xjit-mark-execute', 'xjit-mark xjit-mark-nan'
    ]);
    expect(Number(rects[0].getAttribute('x'))).toBeCloseTo(50);
    expect(Number(rects[2].getAttribute('x'))).toBeCloseTo(296);
    expect(Number(rects[2].getAttribute('width'))).toBe(3);
    expect(rects[1].querySelector('title')!.textContent).toBe('f: 10000 call(s), 500.0 ms');
    expect(rects[0].querySelector('title')!.textContent).toContain(EVIL);
    expect(svg.querySelector('img')).toBeNull();
  });
});
