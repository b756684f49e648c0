/**
 * Jump from a reported source position to the notebook cell that holds it.
 *
 * The kernel resolves positions to the cell id the front end sent with the
 * execute request (exact) and to the cell's `In [N]` number (a fallback for
 * cells run by another client or before the cell id was known).
 */
import type { Cell, ICellModel } from '@jupyterlab/cells';
import type { Notebook, NotebookPanel } from '@jupyterlab/notebook';
import { ILocation } from './protocol';

export function findCellIndex(notebook: Notebook, loc: ILocation): number {
  const cells = notebook.widgets;
  if (loc.cell_id) {
    const i = cells.findIndex(c => c.model.id === loc.cell_id);
    if (i >= 0) {
      return i;
    }
  }
  if (loc.execution_count !== null) {
    const i = cells.findIndex(
      c =>
        c.model.type === 'code' &&
        (c.model as ICellModel & { executionCount: number | null }).executionCount ===
          loc.execution_count
    );
    if (i >= 0) {
      return i;
    }
  }
  return -1;
}

/** Make the cell active, scroll it into view, put the cursor on the line
 * and flash it. Returns false when no cell matches. */
export async function jumpTo(panel: NotebookPanel, loc: ILocation): Promise<boolean> {
  const notebook = panel.content;
  const index = findCellIndex(notebook, loc);
  if (index < 0) {
    return false;
  }
  notebook.activeCellIndex = index;
  notebook.deselectAll();
  const cell: Cell = notebook.widgets[index];
  await notebook.scrollToCell(cell, 'center');
  if (loc.lineno !== null && cell.editor) {
    const line = Math.max(0, Math.min(loc.lineno - 1, cell.editor.lineCount - 1));
    cell.editor.setCursorPosition({ line, column: 0 });
    cell.editor.revealPosition({ line, column: 0 });
  }
  cell.node.classList.add('xjit-jump-target');
  cell.node.setAttribute('data-xjit-jump-line', String(loc.lineno ?? ''));
  window.setTimeout(() => cell.node.classList.remove('xjit-jump-target'), 2000);
  return true;
}
