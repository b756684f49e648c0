/**
 * DOM for the xjit panel: a status line and the Functions, Jaxpr, Sharding,
 * Findings, Breakpoint, NaN and Timeline sections, re-rendered from a `PanelModel`.
 *
 * Everything shown comes from the kernel and may contain user-chosen text
 * (function names, messages, file names), so every string goes through
 * `textContent` or an attribute; nothing here ever assigns HTML.
 */
import { renderBreakpoint } from './breakpoint';
import { JaxprView, jumpable, locationLabel } from './jaxpr';
import { ISelection, PanelModel } from './model';
import { IFunctionSummary, ILocation } from './protocol';
import { renderSharding } from './sharding';
import { renderTimeline } from './timeline';

export { jumpable, locationLabel };

export interface IActions {
  selectFunction(funId: number): void;
  jumpTo(location: ILocation): void;
  runDebug(): void;
  debugInput(text: string): void;
  continueBreakpoint(): void;
}

type Attrs = { [key: string]: string | number | boolean | undefined };

/** Create an element; `text` is set as textContent, never parsed. */
export function h(
  tag: string,
  attrs: Attrs = {},
  children: (Node | string | null)[] = []
): HTMLElement {
  const node = document.createElement(tag);
  for (const key of Object.keys(attrs)) {
    const value = attrs[key];
    if (value === undefined || value === false) {
      continue;
    }
    if (key === 'text') {
      node.textContent = String(value);
    } else if (key === 'class') {
      node.className = String(value);
    } else {
      node.setAttribute(key, value === true ? '' : String(value));
    }
  }
  for (const child of children) {
    if (child !== null) {
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    }
  }
  return node;
}

export function fmtSeconds(s: number | null): string {
  if (s === null || s === undefined) {
    return '–';
  }
  if (s < 1e-3) {
    return `${(s * 1e6).toFixed(0)}µs`;
  }
  if (s < 1) {
    return `${(s * 1e3).toFixed(1)}ms`;
  }
  return `${s.toFixed(2)}s`;
}

export function fmtBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i += 1;
  }
  return i === 0 ? `${n}B` : `${n.toFixed(1)}${units[i]}`;
}

const STATUS_TEXT: { [key: string]: string } = {
  'no-kernel': 'No notebook kernel. Open a notebook to see its jitted functions.',
  waiting: 'Waiting for the kernel extension: run  %load_ext xjit  in the notebook.',
  restarting: 'Kernel restarting…',
  connected: 'Connected'
};

export class PanelView {
  readonly node: HTMLElement;
  private _status: HTMLElement;
  private _functions: HTMLElement;
  private _jaxpr: HTMLElement;
  private _sharding: HTMLElement;
  private _findings: HTMLElement;
  private _breakpoint: HTMLElement;
  private _nan: HTMLElement;
  private _timeline: HTMLElement;
  private _jaxprView: JaxprView | null = null;
  private _jaxprFor: ISelection | null = null;
  private _timelineDrawn: [PanelModel | null, number] | null = null; // (model, its version)

  constructor(private _actions: IActions) {
    this.node = h('div', { class: 'xjit-panel' });
    this._status = h('div', { class: 'xjit-status' });
    this.node.appendChild(this._status);
    this._functions = this._section('functions', 'Functions');
    this._jaxpr = this._section('jaxpr', 'Jaxpr');
    this._sharding = this._section('sharding', 'Sharding');
    this._findings = this._section('findings', 'Findings');
    this._breakpoint = this._section('breakpoint', 'Breakpoint');
    this._nan = this._section('nan', 'NaN');
    this._timeline = this._section('timeline', 'Timeline');
  }

  private _section(key: string, title: string): HTMLElement {
    const body = h('div', { class: 'xjit-section-body' });
    const section = h('section', { class: `xjit-section xjit-section-${key}`, 'data-section': key }, [
      h('h3', { class: 'xjit-section-title', text: title }),
      body
    ]);
    this.node.appendChild(section);
    return body;
  }

  render(model: PanelModel | null): void {
    const status = model ? model.status : 'no-kernel';
    let text = STATUS_TEXT[status] || status;
    if (model && status === 'connected' && model.xjitVersion) {
      text += ` · xjit ${model.xjitVersion}`;
    }
    if (model && model.dropped) {
      text += ` · ${model.dropped} events dropped`;
    }
    this._status.textContent = text;
    this._status.setAttribute('data-status', status);
    this._renderFunctions(model);
    this._renderJaxpr(model);
    const sel = model ? model.selection : null;
    this._sharding.replaceChildren(
      ...renderSharding(h, sel && !sel.loading ? sel.sharding : null, loc => this._actions.jumpTo(loc))
    );
    this._renderFindings(model);
    this._breakpoint.replaceChildren(
      ...renderBreakpoint(h, model ? model.breakpoint : null, this._actions)
    );
    this._renderNan(model);
    this._renderTimeline(model);
  }

  private _empty(body: HTMLElement, text: string): void {
    body.replaceChildren(h('div', { class: 'xjit-empty', text }));
  }

  private _renderFunctions(model: PanelModel | null): void {
    const body = this._functions;
    const fns = model ? Array.from(model.functions.values()) : [];
    if (fns.length === 0) {
      this._empty(
        body,
        'No jitted functions yet. Run a cell with  %%xjit  (after  %load_ext xjit) and each function it jits shows up here.'
      );
      return;
    }
    body.replaceChildren(
      h('ul', { class: 'xjit-functions' }, fns.map(f => this._functionRow(f, model!)))
    );
  }

  /** One function as a compact card (the sidebar is narrow). */
  private _functionRow(f: IFunctionSummary, model: PanelModel): HTMLElement {
    const selected = model.selection !== null && model.selection.fun_id === f.fun_id;
    const name = h('button', {
      class: 'xjit-link xjit-function-name',
      text: f.name,
      title: `${locationLabel(f.location)} — show its jaxpr`
    });
    name.addEventListener('click', () => this._actions.selectFunction(f.fun_id));
    const head = h('div', { class: 'xjit-function-head' }, [
      name,
      h('span', { class: 'xjit-function-where', text: locationLabel(f.location) })
    ]);
    if (f.cache_misses > 1) {
      head.appendChild(
        h('span', {
          class: 'xjit-badge xjit-recompile-badge',
          text: `recompiled ×${f.cache_misses - 1}`,
          title: f.recompile_reasons.join('\n') || 'recompiled'
        })
      );
    }
    if (f.budget_warning) {
      head.appendChild(
        h('span', {
          class: 'xjit-badge xjit-budget-badge',
          text: 'over recompile budget',
          title: f.budget_warning
        })
      );
    }
    const stat = (cls: string, label: string, value: string | number) =>
      h('span', { class: `xjit-stat ${cls}`, 'data-value': value }, [
        h('span', { class: 'xjit-stat-label', text: label }),
        h('span', { class: 'xjit-stat-value', text: value })
      ]);
    return h(
      'li',
      {
        class: `xjit-function-row${selected ? ' xjit-selected' : ''}`,
        'data-fun-id': f.fun_id,
        'data-fun-name': f.name
      },
      [
        head,
        h('div', { class: 'xjit-stats' }, [
          stat('xjit-calls', 'calls', f.calls),
          stat('xjit-hits', 'hits', f.cache_hits),
          stat('xjit-misses', 'misses', f.cache_misses)
        ]),
        h('div', { class: 'xjit-stats xjit-times' }, [
          stat('xjit-trace', 'trace', fmtSeconds(f.trace_s)),
          stat('xjit-lower', 'lower', fmtSeconds(f.lower_s)),
          stat('xjit-compile', 'compile', fmtSeconds(f.compile_s)),
          stat('xjit-run', 'run', fmtSeconds(f.run_s))
        ]),
        typeof f.peak_bytes === 'number'
          ? h('div', { class: 'xjit-stats xjit-memory' }, [
              stat('xjit-peak', 'peak', fmtBytes(f.peak_bytes)),
              stat('xjit-temp', 'temp', fmtBytes(f.temp_bytes ?? 0))
            ])
          : null,
        f.cache_misses > 1 && f.recompile_reasons.length
          ? h('div', {
              class: 'xjit-reason',
              text: `last recompile: ${f.recompile_reasons[f.recompile_reasons.length - 1]}`,
              title: f.recompile_reasons.map((r, i) => `${i + 1}. ${r}`).join('\n')
            })
          : null,
        f.budget_warning ? h('div', { class: 'xjit-budget-warning', text: f.budget_warning }) : null
      ]
    );
  }

  /** The selected function's jaxpr; the list (with its scroll position
   * and open folds) is kept until another reply replaces the selection. */
  private _renderJaxpr(model: PanelModel | null): void {
    const body = this._jaxpr;
    const sel = model ? model.selection : null;
    if (sel === this._jaxprFor && sel !== null) {
      return;
    }
    this._jaxprFor = sel;
    this._jaxprView = null;
    if (!sel) {
      this._empty(body, 'Click a function to see its jaxpr.');
      return;
    }
    const title = h('div', { class: 'xjit-jaxpr-title' }, [h('strong', { text: sel.name })]);
    if (sel.loading) {
      body.replaceChildren(title, h('div', { class: 'xjit-empty', text: 'Loading…' }));
      return;
    }
    if (sel.header === null || sel.footer === null) {
      body.replaceChildren(title, h('div', { class: 'xjit-empty', text: 'No jaxpr recorded.' }));
      return;
    }
    title.appendChild(
      h('span', { class: 'xjit-jaxpr-count', text: ` · ${sel.equations.length} equations` })
    );
    this._jaxprView = new JaxprView(
      { header: sel.header, footer: sel.footer, sources: sel.sources, equations: sel.equations },
      { jumpTo: loc => this._actions.jumpTo(loc) }
    );
    body.replaceChildren(title, this._jaxprView.node);
  }

  /** The jaxpr list on show (tests and the browser check read it). */
  get jaxprView(): JaxprView | null {
    return this._jaxprView;
  }

  private _renderFindings(model: PanelModel | null): void {
    const body = this._findings;
    const groups = model ? model.findingsByKind() : new Map();
    if (groups.size === 0) {
      this._empty(
        body,
        'No findings. Functions traced in a cell are linted after it runs; %%xjit shows the findings under the cell too.'
      );
      return;
    }
    const out: HTMLElement[] = [];
    groups.forEach((items, kind) => {
      const list = h('ul', { class: 'xjit-findings-list' });
      for (const f of items) {
        const loc = h('button', {
          class: 'xjit-link xjit-finding-location',
          text: locationLabel(f.location),
          disabled: !jumpable(f.location),
          title: f.location.filename || ''
        });
        loc.addEventListener('click', () => this._actions.jumpTo(f.location));
        list.appendChild(
          h('li', { class: 'xjit-finding', 'data-kind': f.kind }, [
            h('div', { class: 'xjit-finding-message', text: f.message }),
            f.suggestion ? h('div', { class: 'xjit-finding-suggestion', text: `→ ${f.suggestion}` }) : null,
            h('div', { class: 'xjit-finding-meta' }, [h('span', { text: `${f.fun_name} · ` }), loc])
          ])
        );
      }
      out.push(
        h('details', { class: 'xjit-finding-group', open: true, 'data-kind': kind }, [
          h('summary', { text: `${kind} (${items.length})` }),
          list
        ])
      );
    });
    body.replaceChildren(...out);
  }

  private _renderNan(model: PanelModel | null): void {
    const body = this._nan;
    const nan = model ? model.nan : null;
    const children: (HTMLElement | null)[] = [];
    if (!nan) {
      children.push(
        h('div', {
          class: 'xjit-empty',
          text: 'No NaN reported. Enable checks with  xjit.config.update("jax_debug_nans", True).'
        })
      );
    } else {
      const d = nan.details as { message?: string; eqn?: string; primitive?: string };
      const loc = h('button', {
        class: 'xjit-link xjit-nan-location',
        text: locationLabel(nan.location),
        disabled: !jumpable(nan.location),
        title: nan.location.filename || ''
      });
      loc.addEventListener('click', () => this._actions.jumpTo(nan.location));
      children.push(
        h('div', { class: 'xjit-nan-report' }, [
          h('div', { class: 'xjit-nan-message', text: String(d.message || 'invalid value') }),
          h('code', { class: 'xjit-nan-eqn', text: String(d.eqn || d.primitive || '') }),
          h('div', { class: 'xjit-nan-where' }, [h('span', { text: 'created at ' }), loc])
        ])
      );
    }
    const debug = model ? model.debug : null;
    const button = h('button', {
      class: 'jp-mod-styled jp-mod-accept xjit-debug-button',
      text: 'Debug (%debug)',
      disabled: !model || model.status !== 'connected' || (debug !== null && debug.status === 'running'),
      title: 'Open the post-mortem debugger on the last exception'
    });
    button.addEventListener('click', () => this._actions.runDebug());
    children.push(h('div', { class: 'xjit-debug-bar' }, [button]));
    if (debug && debug.status !== 'idle') {
      children.push(h('pre', { class: 'xjit-debug-output', text: debug.output }));
      if (debug.prompt !== null) {
        const input = h('input', {
          class: 'xjit-debug-input',
          type: 'text',
          'aria-label': 'debugger command',
          placeholder: 'pdb command (q to quit)'
        }) as HTMLInputElement;
        input.addEventListener('keydown', (ev: KeyboardEvent) => {
          if (ev.key === 'Enter') {
            this._actions.debugInput(input.value);
          }
        });
        children.push(
          h('label', { class: 'xjit-debug-prompt' }, [h('span', { text: debug.prompt }), input])
        );
        setTimeout(() => input.focus(), 0);
      } else if (debug.status !== 'running') {
        children.push(h('div', { class: 'xjit-debug-message', text: `${debug.status}: ${debug.message}` }));
      }
    }
    body.replaceChildren(...(children.filter(c => c !== null) as HTMLElement[]));
  }

  /** Redrawn only when the timeline changed: a click elsewhere (selecting a
   * 10,000-equation jaxpr) must not pay for up to MAX_TIMELINE marks. */
  private _renderTimeline(model: PanelModel | null): void {
    const body = this._timeline;
    const version = model ? model.timelineVersion : -1;
    const drawn = this._timelineDrawn;
    if (drawn && drawn[0] === model && drawn[1] === version) {
      return;
    }
    this._timelineDrawn = [model, version];
    if (!model || model.timeline.length === 0) {
      this._empty(body, 'Nothing has run yet.');
      return;
    }
    const width = Math.max(body.clientWidth || 0, 240);
    body.replaceChildren(renderTimeline(model.timeline, { width, rowHeight: 16, labelWidth: 80 }));
  }
}
