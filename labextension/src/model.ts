/**
 * What the panel shows for one notebook's kernel, built only from validated
 * protocol messages. Pure data (no DOM, no JupyterLab), so it is unit-tested
 * directly; the view re-renders when `changed` fires.
 */
import {
  EventKind,
  IBreakpoint,
  IEquation,
  IEvent,
  IExecutes,
  IFinding,
  IFunctionSummary,
  ILocation,
  ISharding,
  KernelMessage
} from './protocol';

/** Where the panel's connection stands. */
export type Status =
  | 'no-kernel' // the notebook has no kernel (or no notebook is active)
  | 'waiting' // kernel up, xjit_kernel_ext not loaded yet
  | 'connected'
  | 'restarting';

/** One mark on the timeline: an event, or a run of aggregated calls. */
export interface ITimelineItem {
  kind: EventKind | 'execute';
  fun_name: string;
  fun_id: number;
  start: number; // Unix seconds
  end: number;
  count: number;
  duration_s: number | null;
  note?: string; // device runs: where their time went
  device?: number; // a run's part on one device of a program over several
}

export interface ISelection {
  fun_id: number;
  name: string;
  header: string | null; // null: no jaxpr recorded
  footer: string | null;
  sources: ILocation[];
  equations: IEquation[];
  sharding: ISharding | null; // null: it ran on one device
  loading: boolean;
}

export interface IDebugState {
  status: 'idle' | 'running' | 'finished' | 'failed';
  output: string;
  prompt: string | null; // pdb waiting for a command
  message: string;
}

export const MAX_TIMELINE = 2000;

export class PanelModel {
  status: Status = 'no-kernel';
  xjitVersion: string | null = null;
  functions = new Map<number, IFunctionSummary>();
  findings: IFinding[] = [];
  nan: IEvent | null = null;
  timeline: ITimelineItem[] = [];
  /** Bumped whenever `timeline` changes (the view redraws it only then). */
  timelineVersion = 0;
  dropped = 0;
  selection: ISelection | null = null;
  debug: IDebugState = { status: 'idle', output: '', prompt: null, message: '' };
  /** Where `xjit.debug.breakpoint()` waits at its prompt (null: running). */
  breakpoint: IBreakpoint | null = null;
  lastError: string | null = null;

  private _listeners = new Set<() => void>();

  onChange(cb: () => void): () => void {
    this._listeners.add(cb);
    return () => this._listeners.delete(cb);
  }

  emit(): void {
    this._listeners.forEach(cb => cb());
  }

  /** Forget everything (kernel restart, new kernel); keep listeners. */
  reset(status: Status): void {
    this.status = status;
    this.xjitVersion = null;
    this.functions = new Map();
    this.findings = [];
    this.nan = null;
    this.timeline = [];
    this.timelineVersion++;
    this.dropped = 0;
    this.selection = null;
    this.debug = { status: 'idle', output: '', prompt: null, message: '' };
    this.breakpoint = null;
    this.lastError = null;
    this.emit();
  }

  setStatus(status: Status): void {
    if (status !== this.status) {
      this.status = status;
      this.emit();
    }
  }

  /** Apply one (already validated) kernel message. */
  apply(msg: KernelMessage): void {
    switch (msg.type) {
      case 'hello':
        this.status = 'connected';
        this.xjitVersion = msg.xjit_version;
        break;
      case 'state':
        this.status = 'connected';
        this.functions = new Map(msg.functions.map(f => [f.fun_id, f]));
        this.findings = msg.findings.slice();
        this.nan = msg.nan;
        this.timeline = [];
        this.timelineVersion++;
        this._addEvents(msg.events);
        this._addExecutes(msg.executes);
        break;
      case 'batch':
        this.status = 'connected';
        msg.functions.forEach(f => this.functions.set(f.fun_id, f));
        this._addEvents(msg.events);
        this._addExecutes(msg.executes);
        this.dropped += msg.dropped;
        break;
      case 'function':
        if (!this.selection || this.selection.fun_id === msg.fun_id) {
          this.selection = {
            fun_id: msg.fun_id,
            name: msg.name,
            header: msg.header,
            footer: msg.footer,
            sources: msg.sources,
            equations: msg.equations,
            sharding: msg.sharding || null,
            loading: false
          };
        }
        break;
      case 'findings':
        this.findings = this.findings
          .filter(f => f.fun_name !== msg.fun_name)
          .concat(msg.findings);
        break;
      case 'debug':
        if (msg.status === 'started') {
          this.debug = { status: 'running', output: '', prompt: null, message: '' };
        } else {
          this.debug = {
            ...this.debug,
            status: msg.status,
            prompt: null,
            message: msg.message
          };
        }
        break;
      case 'breakpoint':
        this.breakpoint = msg.status === 'stopped' ? msg : null;
        break;
      case 'error':
        this.lastError = msg.message;
        if (this.selection && this.selection.loading) {
          this.selection = { ...this.selection, loading: false };
        }
        break;
    }
    this.emit();
  }

  /** The user picked a function; its jaxpr arrives in a `function` reply. */
  select(funId: number): void {
    const f = this.functions.get(funId);
    this.selection = {
      fun_id: funId,
      name: f ? f.name : String(funId),
      header: null,
      footer: null,
      sources: [],
      equations: [],
      sharding: null,
      loading: true
    };
    this.emit();
  }

  /** Append pdb output; terminal colour codes (IPython colours its
   * debugger) are dropped since the panel shows plain text. */
  debugOutput(text: string): void {
    // eslint-disable-next-line no-control-regex
    const plain = text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    this.debug = { ...this.debug, output: (this.debug.output + plain).slice(-20000) };
    this.emit();
  }

  debugPrompt(prompt: string | null): void {
    this.debug = { ...this.debug, prompt };
    this.emit();
  }

  /** Findings grouped by kind, kinds in first-seen order. */
  findingsByKind(): Map<string, IFinding[]> {
    const out = new Map<string, IFinding[]>();
    for (const f of this.findings) {
      const list = out.get(f.kind) || [];
      list.push(f);
      out.set(f.kind, list);
    }
    return out;
  }

  private _addEvents(events: IEvent[]): void {
    for (const e of events) {
      if (e.kind === 'nan') {
        this.nan = e;
      }
      const start = e.time - (e.duration_s || 0);
      this._push({
        kind: e.kind,
        fun_name: e.fun_name,
        fun_id: e.fun_id,
        start: Math.min(start, e.time),
        end: e.time,
        count: 1,
        duration_s: e.kind === 'device' ? Number(e.details.device_s) : e.duration_s,
        ...(e.kind === 'device' ? { note: String(e.details.note || '') } : {}),
        ...(e.kind === 'device' && typeof e.details.device === 'number' ? { device: e.details.device } : {})
      });
    }
  }

  private _addExecutes(executes: IExecutes[]): void {
    for (const x of executes) {
      this._push({
        kind: 'execute',
        fun_name: x.fun_name,
        fun_id: x.fun_id,
        start: x.first_time - (x.last_s || 0),
        end: x.last_time,
        count: x.count,
        duration_s: x.total_s
      });
    }
  }

  private _push(item: ITimelineItem): void {
    this.timelineVersion++;
    this.timeline.push(item);
    if (this.timeline.length > MAX_TIMELINE) {
      this.timeline.splice(0, this.timeline.length - MAX_TIMELINE);
    }
  }
}
