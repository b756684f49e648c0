"""Small list helpers with JAX's names (``jax._src.util``), which custom
interpreters written from JAX's tutorials import."""
from __future__ import annotations


def safe_zip(*args):
    """``zip`` that raises unless every argument has the same length."""
    n = len(args[0])
    for a in args[1:]:
        if len(a) != n:
            raise ValueError(f"length mismatch: {list(map(len, args))}")
    return list(zip(*args))


def safe_map(f, *args):
    """``map`` to a list that raises unless every argument has the same length."""
    args = list(map(list, args))
    n = len(args[0])
    for a in args[1:]:
        if len(a) != n:
            raise ValueError(f"length mismatch: {list(map(len, args))}")
    return list(map(f, *args))


def unzip2(pairs):
    xs, ys = [], []
    for x, y in pairs:
        xs.append(x)
        ys.append(y)
    return tuple(xs), tuple(ys)


def split_list(xs, ns):
    """``xs`` cut into pieces of lengths ``ns`` plus the rest."""
    xs, out = list(xs), []
    for n in ns:
        out.append(xs[:n])
        xs = xs[n:]
    out.append(xs)
    return out


def partition_list(bs, xs):
    """``(xs where not b, xs where b)``."""
    assert len(bs) == len(xs)
    return [x for b, x in zip(bs, xs) if not b], [x for b, x in zip(bs, xs) if b]


def merge_lists(bs, l0, l1):
    """Inverse of ``partition_list``."""
    i0, i1 = iter(l0), iter(l1)
    return [next(i1) if b else next(i0) for b in bs]
