/**
 * The sidebar's jaxpr view: every equation of the selected function, as a
 * virtualised list (only the rows in sight are in the DOM, so a jaxpr of
 * 10,000 equations opens at once and nothing is cut off).
 *
 * Rows are fixed-height lines. As in the notebook panel, a run of more than
 * `FOLD_RUN` consecutive equations from one source line (an unrolled Python
 * loop) is folded into one row, "▸ N equations from In [3], line 4", which
 * opens on click; an equation holding sub-jaxprs (a loop body, a branch)
 * shows its first line and opens to all of them. Clicking an equation jumps
 * to the line that created it. All text is set with `textContent`.
 */
import { IEquation, ILocation } from './protocol';

export const FOLD_RUN = 20;
export const ROW_HEIGHT = 18; // px; .xjit-jaxpr-row has this height
const OVERSCAN = 20; // rows rendered above and below the visible ones

export interface IJaxprActions {
  jumpTo(location: ILocation): void;
}

export interface IJaxprData {
  header: string;
  footer: string;
  sources: ILocation[];
  equations: IEquation[];
}

/** A group of equations: one equation, or a foldable run from one line. */
interface IBlock {
  id: number;
  equations: IEquation[];
  foldable: boolean;
}

export type Row =
  | { kind: 'text'; text: string }
  | { kind: 'fold'; block: IBlock; open: boolean }
  | { kind: 'eqn'; eqn: IEquation; line: number; lines: string[]; open: boolean };

export function locationLabel(loc: ILocation): string {
  const line = loc.lineno !== null ? `, line ${loc.lineno}` : '';
  if (loc.execution_count !== null) {
    return `In [${loc.execution_count}]${line}`;
  }
  if (loc.filename) {
    const base = loc.filename.split(/[\\/]/).pop() || loc.filename;
    return `${base}${loc.lineno !== null ? ':' + loc.lineno : ''}`;
  }
  return 'unknown location';
}

export function jumpable(loc: ILocation): boolean {
  return loc.cell_id !== null || loc.execution_count !== null;
}

/** Consecutive equations from the same source line, folded past FOLD_RUN. */
export function blocks(equations: IEquation[]): IBlock[] {
  const out: IBlock[] = [];
  let i = 0;
  while (i < equations.length) {
    let j = i + 1;
    const src = equations[i].source;
    if (src !== null) {
      while (j < equations.length && equations[j].source === src) {
        j++;
      }
    }
    const run = equations.slice(i, j);
    if (run.length > FOLD_RUN) {
      out.push({ id: out.length, equations: run, foldable: true });
    } else {
      for (const eqn of run) {
        out.push({ id: out.length, equations: [eqn], foldable: false });
      }
    }
    i = j;
  }
  return out;
}

export class JaxprView {
  readonly node: HTMLElement;
  private _scroller: HTMLElement;
  private _spacer: HTMLElement;
  private _window: HTMLElement;
  private _blocks: IBlock[];
  private _openFolds = new Set<number>();
  private _openEqns = new Set<number>();
  private _rows: Row[] = [];
  private _frame = 0;
  private _first = -1;
  private _last = -1;

  constructor(
    private _data: IJaxprData,
    private _actions: IJaxprActions,
    private _visibleRows = 24
  ) {
    this._blocks = blocks(_data.equations);
    this.node = document.createElement('div');
    this.node.className = 'xjit-jaxpr';
    this._scroller = document.createElement('div');
    this._scroller.className = 'xjit-jaxpr-scroll';
    this._scroller.style.maxHeight = `${_visibleRows * ROW_HEIGHT}px`;
    this._spacer = document.createElement('div');
    this._spacer.className = 'xjit-jaxpr-spacer';
    this._window = document.createElement('div');
    this._window.className = 'xjit-jaxpr-window';
    this._spacer.appendChild(this._window);
    this._scroller.appendChild(this._spacer);
    this.node.appendChild(this._scroller);
    this._scroller.addEventListener('scroll', () => this._schedule());
    this._layout();
  }

  /** All rows in display order (what the list would show unvirtualised). */
  get rows(): Row[] {
    return this._rows;
  }

  get equationCount(): number {
    return this._data.equations.length;
  }

  /** Open or close a folded run (by block id) and re-lay out. */
  toggleFold(id: number): void {
    if (!this._openFolds.delete(id)) {
      this._openFolds.add(id);
    }
    this._layout();
  }

  toggleEqn(index: number): void {
    if (!this._openEqns.delete(index)) {
      this._openEqns.add(index);
    }
    this._layout();
  }

  private _layout(): void {
    const rows: Row[] = [{ kind: 'text', text: this._data.header }];
    for (const block of this._blocks) {
      const open = !block.foldable || this._openFolds.has(block.id);
      if (block.foldable) {
        rows.push({ kind: 'fold', block, open });
      }
      if (!open) {
        continue;
      }
      for (const eqn of block.equations) {
        const lines = eqn.text.split('\n');
        const eqnOpen = this._openEqns.has(eqn.index);
        const shown = eqnOpen ? lines.length : 1;
        for (let l = 0; l < shown; l++) {
          rows.push({ kind: 'eqn', eqn, line: l, lines, open: eqnOpen });
        }
      }
    }
    rows.push({ kind: 'text', text: this._data.footer });
    this._rows = rows;
    this._spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
    this._first = this._last = -1;
    this._paint();
  }

  private _schedule(): void {
    if (this._frame) {
      return;
    }
    this._frame = requestAnimationFrame(() => {
      this._frame = 0;
      this._paint();
    });
  }

  /** Put the rows in (or near) the viewport into the DOM. */
  private _paint(): void {
    const top = this._scroller.scrollTop;
    const height = this._scroller.clientHeight || this._visibleRows * ROW_HEIGHT;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this._rows.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    if (first === this._first && last === this._last) {
      return;
    }
    this._first = first;
    this._last = last;
    this._window.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
    const nodes: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      nodes.push(this._row(this._rows[i]));
    }
    this._window.replaceChildren(...nodes);
  }

  private _location(eqn: IEquation): ILocation | null {
    return eqn.source !== null ? this._data.sources[eqn.source] || null : null;
  }

  private _row(row: Row): HTMLElement {
    const div = document.createElement('div');
    div.className = 'xjit-jaxpr-row';
    if (row.kind === 'text') {
      div.textContent = row.text;
      return div;
    }
    if (row.kind === 'fold') {
      const eqns = row.block.equations;
      const loc = this._location(eqns[0]);
      div.className += ' xjit-jaxpr-fold';
      div.setAttribute('role', 'button');
      div.setAttribute('data-fold', String(row.block.id));
      div.setAttribute('aria-expanded', String(row.open));
      div.textContent = `    ${row.open ? '▾' : '▸'} ${eqns.length} equations from ${
        loc ? locationLabel(loc) : 'one line'
      }`;
      div.addEventListener('click', () => this.toggleFold(row.block.id));
      return div;
    }
    const { eqn, line, lines } = row;
    const loc = this._location(eqn);
    div.className += ' xjit-eqn';
    div.setAttribute('data-eqn-index', String(eqn.index));
    const where = loc ? locationLabel(loc) : 'no source line';
    div.setAttribute('title', `equation ${eqn.index} (${eqn.primitive}) — ${where}`);
    const indent = '    ';
    if (line === 0 && lines.length > 1) {
      const toggle = document.createElement('span');
      toggle.className = 'xjit-jaxpr-toggle';
      toggle.setAttribute('role', 'button');
      toggle.textContent = row.open ? '▾' : '▸';
      toggle.addEventListener('click', ev => {
        ev.stopPropagation();
        this.toggleEqn(eqn.index);
      });
      div.appendChild(document.createTextNode(indent.slice(2)));
      div.appendChild(toggle);
      div.appendChild(document.createTextNode(' ' + lines[0] + (row.open ? '' : ' …')));
    } else {
      div.textContent = indent + lines[line];
    }
    if (loc && jumpable(loc)) {
      div.setAttribute('role', 'button');
      div.addEventListener('click', () => this._actions.jumpTo(loc));
    }
    return div;
  }
}
