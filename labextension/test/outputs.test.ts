/**
 * Click-to-line in %%xjit outputs: which element a click links, the location
 * read from its data attributes, and the Continue button's stdin answer.
 */
import { answerStdin, pendingStdin } from '../src/breakpoint';
import { linkedTarget, locationOf } from '../src/outputs';

function page(html: string): HTMLElement {
  const root = document.createElement('div');
  root.innerHTML = html;
  document.body.replaceChildren(root);
  return root;
}

const ATTRS = 'data-xjit-file="/tmp/ipykernel_1/5.py" data-xjit-line="5" data-xjit-cell="4"';

describe('%%xjit output links', () => {
  test('an equation row in an output links to its cell and line', () => {
    const root = page(
      `<div class="jp-OutputArea-output"><div class="xjit-panel">` +
        `<div class="eq s0" ${ATTRS} data-xjit-cell-id="c-9"><span class="p">sin</span>` +
        `<span class="src xjit-loc">In [4], line 5</span></div></div></div>`
    );
    const el = linkedTarget(root.querySelector('.p'), root)!;
    expect(el.classList.contains('eq')).toBe(true);
    expect(locationOf(el)).toEqual({
      filename: '/tmp/ipykernel_1/5.py', lineno: 5, cell_id: 'c-9', execution_count: 4
    });
  });

  test('a fold summary toggles; only its location label jumps; its rows jump', () => {
    const root = page(
      `<div class="jp-OutputArea-output"><details class="fold" ${ATTRS}><summary>` +
        `<span class="mk"></span> … 50 equations from <span class="xjit-loc">In [4], line 5</span>` +
        `</summary><div class="eq" ${ATTRS}><span class="p">add</span></div></details></div>`
    );
    expect(linkedTarget(root.querySelector('.mk'), root)).toBeNull();
    expect(linkedTarget(root.querySelector('summary .xjit-loc'), root)).toBe(
      root.querySelector('details')
    );
    expect(linkedTarget(root.querySelector('.eq .p'), root)).toBe(root.querySelector('.eq'));
  });

  test('no link outside outputs, without a cell, or with a malformed line', () => {
    const root = page(
      `<div class="eq" ${ATTRS}><span id="a">x</span></div>` +
        `<div class="jp-OutputArea-output">` +
        `<div id="b" data-xjit-file="lib.py" data-xjit-line="9">lib</div>` +
        `<div id="c" data-xjit-line="5x" data-xjit-cell="4">bad</div></div>`
    );
    expect(linkedTarget(root.querySelector('#a'), root)).toBeNull();
    expect(locationOf(root.querySelector('#b')!)).toBeNull();
    expect(locationOf(root.querySelector('#c')!)).toBeNull();
    expect(linkedTarget(null, root)).toBeNull();
  });
});

describe('Continue answers the notebook input box', () => {
  test('types c into the pending .jp-Stdin-input and presses Enter', () => {
    const root = page(
      `<div class="jp-OutputArea-output"><input class="jp-Stdin-input" value=""></div>`
    );
    const box = pendingStdin(root)!;
    const keys: string[] = [];
    box.addEventListener('keydown', (e: KeyboardEvent) => keys.push(`${e.key}:${box.value}`));
    expect(answerStdin(root, 'c')).toBe(true);
    expect(keys).toEqual(['Enter:c']);
  });

  test('false when no input is pending', () => {
    expect(answerStdin(page('<div class="jp-OutputArea-output"></div>'), 'c')).toBe(false);
  });
});
