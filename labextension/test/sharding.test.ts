/**
 * The Sharding section: a `function` reply's `sharding` (validated like
 * every message) reaches the selection and is drawn as the mesh, each
 * value's spec and per-device shards, and the collectives with their sizes
 * and a jump to their line; user strings stay text.
 */
import { PanelModel } from '../src/model';
import { checkKernelMessage, IFunctionReply, ILocation, ISharding } from '../src/protocol';
import { layout, over } from '../src/sharding';
import { PanelView } from '../src/view';
import { actions } from './actions';

const EVIL = '<img src=x onerror="window.__pwned=1">';
const loc: ILocation = { filename: '/tmp/ipykernel_1/5.py', lineno: 8, cell_id: 'c1', execution_count: 2 };

const sharding: ISharding = {
  mesh: [{ name: 'data', size: 2 }],
  devices: [0, 1],
  platform: 'cpu',
  args: [
    {
      path: `x${EVIL}`, type: 'f32[4,3]', spec: "P('data',)", axes: [['data'], []], replicated: false,
      shard_type: 'f32[2,3]',
      shards: [
        { device: 0, index: [[0, 2], [0, 3]], shape: [2, 3] },
        { device: 1, index: [[2, 4], [0, 3]], shape: [2, 3] }
      ]
    },
    {
      path: 'w', type: 'f32[3]', spec: 'P()', axes: [[]], replicated: true, shard_type: 'f32[3]',
      shards: [{ device: 0, index: [[0, 3]], shape: [3] }, { device: 1, index: [[0, 3]], shape: [3] }]
    }
  ],
  outs: [{ path: 'out', type: 'f32[]', spec: 'P()', axes: [], replicated: true, shard_type: 'f32[]', shards: [] }],
  collectives: [
    { kind: 'all-reduce', name: 'all-reduce', shape: 'f32[]', bytes: 4, operand_bytes: 4, axes: ['data'],
      groups: 'replica_groups={{0,1}}', primitive: 'reduce_sum', location: loc },
    { kind: 'collective-permute', name: 'cp', shape: 'f32[2048]', bytes: 8192, operand_bytes: 8192, axes: [],
      groups: 'source_target_pairs={{0,1},{1,0}}', primitive: null, location: { ...loc, lineno: null } }
  ]
};

function reply(s: ISharding | null): IFunctionReply {
  return {
    protocol: 'xjit/2', type: 'function', fun_id: 3, name: 'loss', header: '{ lambda ; a:f32[4,3]. let',
    footer: 'in (b,) }', sources: [loc], equations: [
      { index: 0, text: 'b:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a', primitive: 'reduce_sum', nested: false, source: 0 }
    ], sharding: s
  };
}

describe('sharding section', () => {
  test('the reply validates; a bad collective or shard does not', () => {
    expect(checkKernelMessage(reply(sharding))).toBeNull();
    expect(checkKernelMessage(reply(null))).toBeNull();
    const bad = JSON.parse(JSON.stringify(reply(sharding)));
    bad.sharding.collectives[0].bytes = -4;
    expect(checkKernelMessage(bad)).not.toBeNull();
    const noDevice = JSON.parse(JSON.stringify(reply(sharding)));
    delete noDevice.sharding.args[0].shards[1].device;
    expect(checkKernelMessage(noDevice)).not.toBeNull();
  });

  test('layouts and collectives in words', () => {
    expect(layout(sharding.args[0])).toBe("dim 0 over 'data': each device holds f32[2,3]");
    expect(layout(sharding.args[1])).toBe('replicated: each device holds all of f32[3]');
    expect(over(sharding.collectives[0])).toBe("'data'");
    expect(over(sharding.collectives[1])).toBe('source_target_pairs={{0,1},{1,0}}');
  });

  test('the selected function shows its mesh, values, shards and collectives', () => {
    const acts = actions();
    const view = new PanelView(acts);
    const m = new PanelModel();
    m.select(3);
    view.render(m);
    const body = () => view.node.querySelector('.xjit-section-sharding .xjit-section-body')!;
    expect(body().textContent).toContain('One device');
    m.apply(reply(sharding));
    view.render(m);
    expect(body().querySelector('.xjit-sharding-mesh')!.textContent).toBe(
      "Mesh('data': 2) over 2 cpu devices (ids 0, 1)");
    const values = Array.from(body().querySelectorAll('.xjit-sharding-value'));
    expect(values.map(v => v.getAttribute('data-path'))).toEqual([`x${EVIL}`, 'w', 'out']);
    expect(body().querySelector('img')).toBeNull();
    expect(values[0].querySelector('.xjit-sharding-path')!.textContent).toBe(`x${EVIL}`);
    // a split value lists each device's shard; a replicated one has no list
    expect(Array.from(values[0].querySelectorAll('.xjit-sharding-shard')).map(s => s.textContent)).toEqual([
      'device 0: [0:2, 0:3] (2×3)', 'device 1: [2:4, 0:3] (2×3)']);
    expect(values[1].querySelector('details')).toBeNull();
    const cs = Array.from(body().querySelectorAll('.xjit-collective'));
    expect(cs.map(c => c.textContent)).toEqual([
      "all-reduce over 'data': f32[] per device (4 B) from reduce_sum · In [2], line 8",
      'collective-permute over source_target_pairs={{0,1},{1,0}}: f32[2048] per device (8.0 KiB)'
    ]);
    expect(cs[1].querySelector('button')).toBeNull(); // no line to jump to
    (cs[0].querySelector('button') as HTMLButtonElement).click();
    expect(acts.calls).toEqual([['jump', loc]]);
  });

  test('a function on one device shows no sharding', () => {
    const view = new PanelView(actions());
    const m = new PanelModel();
    m.apply(reply(null));
    view.render(m);
    expect(m.selection!.sharding).toBeNull();
    expect(view.node.querySelector('.xjit-sharding-mesh')).toBeNull();
  });
});
