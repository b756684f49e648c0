import { IActions } from '../src/view';

/** The panel's actions, recorded instead of sent to the kernel. */
export function actions(): IActions & { calls: any[] } {
  const calls: any[] = [];
  return {
    calls,
    selectFunction: id => calls.push(['select', id]),
    jumpTo: l => calls.push(['jump', l]),
    runDebug: () => calls.push(['debug']),
    debugInput: t => calls.push(['input', t]),
    continueBreakpoint: () => calls.push(['continue'])
  };
}
