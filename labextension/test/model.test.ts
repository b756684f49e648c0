import { MAX_TIMELINE, PanelModel } from '../src/model';
import { IBatch, IEvent, IFunctionSummary, ILocation } from '../src/protocol';

const loc: ILocation = { filename: 'x.py', lineno: 3, cell_id: 'c1', execution_count: 2 };

function fn(over: Partial<IFunctionSummary> = {}): IFunctionSummary {
  return {
    fun_id: 1, name: 'f', location: loc, calls: 1, cache_hits: 0, cache_misses: 1,
    trace_s: 0.001, lower_s: 0.001, compile_s: 0.01, run_s: 0.0001, recompile_reasons: [],
    ...over
  };
}

function ev(kind: IEvent['kind'], time: number, over: Partial<IEvent> = {}): IEvent {
  return { kind, time, fun_name: 'f', fun_id: 1, location: loc, duration_s: 0.01, reasons: [], details: {}, ...over };
}

function batch(over: Partial<IBatch>): IBatch {
  return { protocol: 'xjit/2', type: 'batch', seq: 1, events: [], executes: [], functions: [], dropped: 0, ...over };
}

describe('PanelModel', () => {
  test('batches update functions, timeline and the last NaN', () => {
    const m = new PanelModel();
    let changes = 0;
    m.onChange(() => changes++);
    m.apply(batch({ functions: [fn()], events: [ev('trace', 10), ev('compile', 10.5)] }));
    m.apply(batch({
      seq: 2,
      functions: [fn({ calls: 10001, cache_hits: 9999, cache_misses: 2 })],
      executes: [{ fun_id: 1, fun_name: 'f', count: 10000, total_s: 0.5, last_s: 0.00005, first_time: 11, last_time: 12 }],
      events: [ev('nan', 12.5, { fun_id: 0, details: { primitive: 'log', message: 'nan in log', eqn: 'b = log a' } })],
      dropped: 3
    }));
    expect(m.status).toBe('connected');
    expect(m.functions.get(1)!.calls).toBe(10001);
    expect(m.timeline.map(t => t.kind)).toEqual(['trace', 'compile', 'nan', 'execute']);
    expect(m.timeline[3].count).toBe(10000);
    expect(m.nan!.details.primitive).toBe('log');
    expect(m.dropped).toBe(3);
    expect(changes).toBe(2);
  });

  test('state replaces everything; reset clears it', () => {
    const m = new PanelModel();
    m.apply(batch({ functions: [fn({ fun_id: 7, name: 'old' })] }));
    m.apply({ protocol: 'xjit/2', type: 'state', functions: [fn()], findings: [], nan: null, events: [], executes: [] });
    expect(Array.from(m.functions.keys())).toEqual([1]);
    m.select(1);
    m.reset('restarting');
    expect(m.functions.size).toBe(0);
    expect(m.selection).toBeNull();
    expect(m.status).toBe('restarting');
  });

  test('findings replace those of the same function and group by kind', () => {
    const m = new PanelModel();
    const finding = (kind: string, fun_name: string) =>
      ({ kind, message: 'm', suggestion: '', location: loc, fun_name, count: null });
    m.apply({ protocol: 'xjit/2', type: 'findings', fun_name: 'f', findings: [finding('print', 'f'), finding('unrolled-loop', 'f')] });
    m.apply({ protocol: 'xjit/2', type: 'findings', fun_name: 'g', findings: [finding('print', 'g')] });
    m.apply({ protocol: 'xjit/2', type: 'findings', fun_name: 'f', findings: [finding('print', 'f')] });
    const groups = m.findingsByKind();
    expect(Array.from(groups.keys())).toEqual(['print']);
    expect(groups.get('print')!.map(f => f.fun_name)).toEqual(['g', 'f']);
  });

  test('a function reply fills the pending selection; another function is ignored', () => {
    const m = new PanelModel();
    m.apply(batch({ functions: [fn()] }));
    m.select(1);
    expect(m.selection!.loading).toBe(true);
    m.apply({ protocol: 'xjit/2', type: 'function', fun_id: 2, name: 'g', header: 'x', footer: 'y', sources: [], equations: [] });
    expect(m.selection!.loading).toBe(true);
    m.apply({ protocol: 'xjit/2', type: 'function', fun_id: 1, name: 'f', header: '{ lambda ; . let', footer: 'in () }', sources: [], equations: [] });
    expect(m.selection).toMatchObject({ fun_id: 1, header: '{ lambda ; . let', loading: false });
  });

  test('debug lifecycle and the timeline cap', () => {
    const m = new PanelModel();
    m.apply({ protocol: 'xjit/2', type: 'debug', status: 'started', message: '%debug' });
    m.debugOutput('> \x1b[32mboom\x1b[39m()\n');
    m.debugPrompt('ipdb> ');
    expect(m.debug).toMatchObject({ status: 'running', prompt: 'ipdb> ', output: '> boom()\n' });
    m.apply({ protocol: 'xjit/2', type: 'debug', status: 'finished', message: 'debugger exited' });
    expect(m.debug).toMatchObject({ status: 'finished', prompt: null });
    m.apply(batch({ events: Array.from({ length: 200 }, (_, i) => ev('trace', i)) }));
    for (let i = 0; i < 15; i++) {
      m.apply(batch({ events: Array.from({ length: 200 }, (_, j) => ev('trace', 1000 + i * 200 + j)) }));
    }
    expect(m.timeline.length).toBe(MAX_TIMELINE);
    expect(m.timeline[m.timeline.length - 1].end).toBe(1000 + 14 * 200 + 199);
  });
});
