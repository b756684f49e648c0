/**
 * The Sharding section: how the selected function ran over many devices
 * (the `sharding` of its `function` reply). The mesh, each argument's and
 * output's PartitionSpec with what every device holds (a split value's
 * shards fold under it), and the compiled program's collectives with their
 * per-device sizes; a collective's line is a button that jumps there.
 */
import { jumpable, locationLabel } from './jaxpr';
import { ICollective, ILocation, ISharding, IValueSharding } from './protocol';

type Make = (
  tag: string,
  attrs?: { [k: string]: string | boolean | undefined },
  children?: (Node | string | null)[]
) => HTMLElement;

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i += 1;
  }
  return i === 0 ? `${n} B` : `${n.toFixed(1)} ${units[i]}`;
}

/** What each device holds of a value, in words. */
export function layout(v: IValueSharding): string {
  if (v.replicated) {
    return `replicated: each device holds all of ${v.type}`;
  }
  const split = v.axes
    .map((axes, d) => (axes.length ? `dim ${d} over ${axes.map(a => `'${a}'`).join(', ')}` : ''))
    .filter(s => s);
  return `${split.join('; ')}: each device holds ${v.shard_type}`;
}

/** The mesh axes a collective communicates over, else XLA's groups. */
export function over(c: ICollective): string {
  return c.axes.length ? c.axes.map(a => `'${a}'`).join(', ') : c.groups || 'all devices';
}

function slices(index: [number, number][]): string {
  return `[${index.map(([a, b]) => `${a}:${b}`).join(', ')}]`;
}

function value(h: Make, v: IValueSharding): HTMLElement {
  const row = h('li', { class: 'xjit-sharding-value', 'data-path': v.path }, [
    h('code', { class: 'xjit-sharding-path', text: v.path }),
    ` ${v.type} `,
    h('code', { class: 'xjit-sharding-spec', text: v.spec }),
    h('div', { class: 'xjit-sharding-layout', text: layout(v) })
  ]);
  if (!v.replicated) {
    const shards = h('ul', { class: 'xjit-sharding-shards' });
    for (const s of v.shards) {
      shards.appendChild(
        h('li', { class: 'xjit-sharding-shard', text: `device ${s.device}: ${slices(s.index)} (${s.shape.join('×') || 'scalar'})` })
      );
    }
    row.appendChild(h('details', {}, [h('summary', { text: `${v.shards.length} shards` }), shards]));
  }
  return row;
}

/** The section's content for `sharding` (null: the function ran on one device). */
export function renderSharding(
  h: Make,
  sharding: ISharding | null,
  jumpTo: (location: ILocation) => void
): HTMLElement[] {
  if (!sharding) {
    return [h('div', { class: 'xjit-empty', text: 'One device (or no function selected).' })];
  }
  const mesh = sharding.mesh.map(a => `'${a.name}': ${a.size}`).join(', ');
  const out = [
    h('div', {
      class: 'xjit-sharding-mesh',
      text: `Mesh(${mesh}) over ${sharding.devices.length} ${sharding.platform} devices (ids ${sharding.devices.join(', ')})`
    })
  ];
  for (const [title, values] of [
    ['Arguments', sharding.args],
    ['Outputs', sharding.outs]
  ] as [string, IValueSharding[]][]) {
    out.push(h('h4', { text: title }), h('ul', { class: 'xjit-sharding-values' }, values.map(v => value(h, v))));
  }
  out.push(h('h4', { text: 'Collectives' }));
  if (!sharding.collectives.length) {
    out.push(h('div', { class: 'xjit-empty', text: 'None: no device exchanges data with another.' }));
    return out;
  }
  const list = h('ul', { class: 'xjit-collectives' });
  for (const c of sharding.collectives) {
    let where: HTMLElement | null = null;
    if (c.location.lineno !== null) {
      where = h('button', {
        class: 'xjit-link xjit-collective-location',
        text: locationLabel(c.location),
        disabled: !jumpable(c.location),
        title: c.location.filename || ''
      });
      where.addEventListener('click', () => jumpTo(c.location));
    }
    list.appendChild(
      h('li', { class: 'xjit-collective', 'data-kind': c.kind }, [
        h('code', { text: c.kind }),
        ` over ${over(c)}: ${c.shape} per device (${bytes(c.bytes)})` +
          (c.primitive ? ` from ${c.primitive}` : '') +
          (where ? ' · ' : ''),
        where
      ])
    );
  }
  out.push(list);
  return out;
}
