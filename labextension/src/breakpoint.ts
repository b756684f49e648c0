/**
 * The stopped `xjit.debug.breakpoint()` in the sidebar: its frame (function,
 * line, the locals' reprs) and a Continue button.
 *
 * While the breakpoint waits, the kernel is inside `input()` for the cell's
 * execute request: it reads the stdin channel and handles no comm message.
 * So Continue does what a user would do: it types `c` into the notebook's
 * input box for that request (JupyterLab's `.jp-Stdin-input`) and presses
 * Enter, which sends the `input_reply` the prompt waits for.
 */
import { locationLabel, jumpable } from './jaxpr';
import { IBreakpoint, ILocation } from './protocol';

type Make = (tag: string, attrs?: { [k: string]: string | boolean | undefined }, children?: (Node | null)[]) => HTMLElement;

/** The pending input box of `root` (a notebook's node), if any. */
export function pendingStdin(root: HTMLElement): HTMLInputElement | null {
  const boxes = root.querySelectorAll<HTMLInputElement>('.jp-OutputArea-output .jp-Stdin-input');
  return boxes.length ? boxes[boxes.length - 1] : null;
}

/** Answer the pending prompt in `root` with `text`; false when none waits. */
export function answerStdin(root: HTMLElement, text: string): boolean {
  const box = pendingStdin(root);
  if (!box) {
    return false;
  }
  box.value = text;
  box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  return true;
}

export interface IBreakpointActions {
  jumpTo(location: ILocation): void;
  continueBreakpoint(): void;
}

/** The section's content: an empty-state hint, or the stopped frame. */
export function renderBreakpoint(
  h: Make,
  bp: IBreakpoint | null,
  actions: IBreakpointActions
): HTMLElement[] {
  if (!bp) {
    return [
      h('div', {
        class: 'xjit-empty',
        text: 'Not stopped. xjit.debug.breakpoint() inside a jitted function stops here.'
      })
    ];
  }
  const where = h('button', {
    class: 'xjit-link xjit-breakpoint-location',
    text: locationLabel(bp.location),
    disabled: !jumpable(bp.location),
    title: bp.location.filename || ''
  });
  where.addEventListener('click', () => actions.jumpTo(bp.location));
  const rows = bp.locals.map(l =>
    h('tr', { class: 'xjit-breakpoint-local', 'data-name': l.name }, [
      h('td', { class: 'xjit-breakpoint-name', text: l.name }),
      h('td', {}, [h('pre', { class: 'xjit-breakpoint-repr', text: l.repr })])
    ])
  );
  const cont = h('button', {
    class: 'jp-mod-styled jp-mod-accept xjit-breakpoint-continue',
    text: 'Continue',
    title: 'Answer the (jaxdb) prompt with c'
  });
  cont.addEventListener('click', () => actions.continueBreakpoint());
  return [
    h('div', { class: 'xjit-breakpoint' }, [
      h('div', { class: 'xjit-breakpoint-frame' }, [
        h('span', { text: 'stopped in ' }),
        h('code', { class: 'xjit-breakpoint-function', text: `${bp.function}()` }),
        h('span', { text: ' at ' }),
        where
      ]),
      h('table', { class: 'xjit-breakpoint-locals' }, rows),
      h('div', { class: 'xjit-debug-bar' }, [cont])
    ])
  ];
}
