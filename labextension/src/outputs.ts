/**
 * Click-to-line in the in-cell `%%xjit` panels.
 *
 * The panels are static HTML (no script: they must work on GitHub and in
 * nbconvert too). Every equation row, finding and "defined at" line with a
 * source position carries `data-xjit-file`, `data-xjit-line` and, for code
 * from a notebook cell, `data-xjit-cell` (its `In [N]`) and
 * `data-xjit-cell-id`. Here one delegated click handler per notebook turns
 * a click on such an element inside an output area into `jumpTo`. The
 * notebook node gets the class `xjit-outputs-linked`, which alone enables
 * the hover styling, so a page without this extension shows no affordance
 * it cannot honour. Untrusted outputs (a reopened notebook the user has
 * not trusted) are sanitized by JupyterLab, which drops `data-xjit-*`:
 * those panels stay readable and simply do not link.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import { jumpTo } from './jump';
import { ILocation } from './protocol';

export const LINKED_CLASS = 'xjit-outputs-linked';
const LINKED = '[data-xjit-line]';

function intOrNull(text: string | null): number | null {
  if (text === null || !/^\d+$/.test(text)) {
    return null;
  }
  return parseInt(text, 10);
}

/** The source position an element of an xjit output links to, or null. */
export function locationOf(el: Element): ILocation | null {
  const lineno = intOrNull(el.getAttribute('data-xjit-line'));
  const cellId = el.getAttribute('data-xjit-cell-id');
  const count = intOrNull(el.getAttribute('data-xjit-cell'));
  if (lineno === null || (cellId === null && count === null)) {
    return null; // not in a notebook cell: nothing here to jump to
  }
  return {
    filename: el.getAttribute('data-xjit-file'),
    lineno,
    cell_id: cellId || null,
    execution_count: count
  };
}

/** The linked element a click in `root` landed on, or null. A click on a
 * fold's summary toggles the fold; it jumps only from the summary's own
 * location label. */
export function linkedTarget(target: EventTarget | null, root: Element): Element | null {
  if (!(target instanceof Element) || !root.contains(target)) {
    return null;
  }
  const el = target.closest(LINKED);
  if (!el || !root.contains(el) || !el.closest('.jp-OutputArea-output')) {
    return null;
  }
  const summary = target.closest('summary');
  if (summary && el.contains(summary) && !target.closest('.xjit-loc')) {
    return null;
  }
  return el;
}

/** Link `panel`'s xjit outputs to their source lines (once per panel). */
export function linkOutputs(panel: NotebookPanel): void {
  const node = panel.content.node;
  if (node.classList.contains(LINKED_CLASS)) {
    return;
  }
  node.classList.add(LINKED_CLASS);
  node.addEventListener('click', (ev: MouseEvent) => {
    const el = linkedTarget(ev.target, node);
    const loc = el ? locationOf(el) : null;
    if (loc && !panel.isDisposed) {
      void jumpTo(panel, loc);
    }
  });
}
