/**
 * The "xjit" sidebar widget. It keeps one `KernelLink` per open notebook and
 * shows the one for the notebook that is current, so switching notebooks
 * switches the panel and switching back finds its state intact.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';
import { KernelLink } from './connection';
import { answerStdin } from './breakpoint';
import { jumpTo } from './jump';
import { ILocation } from './protocol';
import { PanelView } from './view';

export class XjitPanel extends Widget {
  private _view: PanelView;
  private _links = new Map<NotebookPanel, KernelLink>();
  private _current: NotebookPanel | null = null;
  private _unlisten: (() => void) | null = null;
  private _frame = 0;

  constructor() {
    super();
    this.id = 'xjit-panel';
    this.addClass('xjit-sidebar');
    this.title.caption = 'xjit';
    this.title.label = 'xjit';
    this._view = new PanelView({
      selectFunction: id => this._link()?.selectFunction(id),
      jumpTo: loc => void this._jump(loc),
      runDebug: () => this._link()?.runDebug(),
      debugInput: text => this._link()?.debugInput(text),
      continueBreakpoint: () => this._continue()
    });
    this.node.appendChild(this._view.node);
    this._view.render(null);
  }

  /** Show `panel`'s kernel (null: no notebook is current). */
  setNotebook(panel: NotebookPanel | null): void {
    if (panel === this._current) {
      return;
    }
    if (this._unlisten) {
      this._unlisten();
      this._unlisten = null;
    }
    this._current = panel;
    const link = panel ? this._ensureLink(panel) : null;
    this.node.setAttribute('data-notebook', panel ? panel.context.path : '');
    if (link) {
      this._unlisten = link.model.onChange(() => this._schedule());
    }
    this._view.render(link ? link.model : null);
  }

  private _ensureLink(panel: NotebookPanel): KernelLink {
    let link = this._links.get(panel);
    if (!link) {
      link = new KernelLink(panel.sessionContext);
      this._links.set(panel, link);
      panel.disposed.connect(() => {
        link!.dispose();
        this._links.delete(panel);
        if (this._current === panel) {
          this.setNotebook(null);
        }
      });
    }
    return link;
  }

  private _link(): KernelLink | null {
    return this._current ? this._links.get(this._current) || null : null;
  }

  private async _jump(loc: ILocation): Promise<void> {
    const panel = this._current;
    if (panel && !panel.isDisposed) {
      await jumpTo(panel, loc);
    }
  }

  /** Answer the stopped breakpoint's prompt in the notebook with `c`. */
  private _continue(): void {
    const panel = this._current;
    if (panel && !panel.isDisposed && !answerStdin(panel.content.node, 'c')) {
      console.warn('xjit: no input box is waiting in the notebook');
    }
  }

  /** Coalesce bursts of model changes into one render per frame. */
  private _schedule(): void {
    if (this._frame) {
      return;
    }
    this._frame = requestAnimationFrame(() => {
      this._frame = 0;
      const link = this._link();
      this._view.render(link ? link.model : null);
    });
  }

  dispose(): void {
    this._links.forEach(link => link.dispose());
    this._links.clear();
    super.dispose();
  }
}
