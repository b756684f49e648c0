"""How ``x[idx]`` and ``x.at[idx].get(...)`` are computed, as JAX 0.10.2's
``rewriting_take`` picks: a static ``slice`` when every index is static (and
in bounds, unless mode='clip'), else one ``dynamic_slice`` when the indices
are integers (static, traced or 0-d arrays) and slices of step 1 or -1,
else a ``gather``. An out-of-bounds static integer is therefore a clamping
dynamic_slice, not a clamped slice (checkify's index checks see it), and
mode='clip' slices statically. Each case is the jaxpr JAX printed and the
value it returned (``indexing_strategy.json``, written by
``scripts/record_indexing_strategy.py``).
"""
import recorded

PRELUDE = '''
X = jnp.arange(30.).reshape(5, 2, 3)
V = jnp.arange(6.)
Z = jnp.zeros((0, 3))
I = jnp.int32(1)

def show(expr):
    f = lambda x, v, z, i: eval(expr)
    jaxpr = jax.make_jaxpr(f)(X, V, Z, I)
    value = np.asarray(f(X, V, Z, I)).tolist()
    return f"{jaxpr}\\nvalue: {value}"
'''

EXPRS = [
    # static ints: in bounds a slice, out of bounds a dynamic_slice
    "v[2]", "v[7]", "v[-7]", "v[-6]", "v[np.int32(9)]", "x[3]", "x[7]", "x[-7]", "x[1, 5]",
    "x[7, 0]", "x[7, 1:]", "x[7, ::-1]", "x[None, 7]", "x[..., 5]", "x[..., None, 1, 7]",
    "x[7, ...]", "x[7][1]", "x[:, 1, -7]", "x[np.int64(7)]", "x[7, :, 1]",
    # 0-d NumPy arrays are arrays: a dynamic_slice even in bounds
    "v[np.array(9)]", "v[np.array(2)]", "x[np.array(1), 1]",
    # steps other than 1 and -1 with a non-static-slice index: a gather
    "x[7, ::2]", "x[i, ::2]", "x[i, 1:0]", "x[7, 1:0]",
    # traced scalars
    "v[i]", "x[i, ::-1]", "x[i, 1:]", "x[..., ::-1, i]", "x[i, i]", "x[7, i]", "x[i, 5]",
    "x[1, :, ::-1]", "x[1, ::-1, 1:]", "x[-1, 5::-1]",
    "v[::-1]", "v[5:1:-1]", "v[10:-10:-1]", "v[1:-10:-1]", "x[None, None, 1]",
    # empty axes, booleans, bad indices
    "z[0]", "z[i]", "z[-1, 1]", "z[:, 7]", "x[True]", "x[i, True]", "x[1.5]", "x[i:i+1]",
    "x[1, i:]", "x[..., i:]", "x[1, 2, 3, 4]", "v[2**40]",
    # .at[].get: the modes that may slice do (whatever the fill_value)
    "x.at[7].get()", "x.at[3].get()", "x.at[7].get(mode='clip')", "x.at[-9].get(mode='clip')",
    "x.at[7].get(mode='fill')", "x.at[3].get(mode='fill')", "x.at[7].get(mode='promise_in_bounds')",
    "x.at[7, 1].get(mode='promise_in_bounds')", "x.at[i, ::2].get(mode='clip')",
    "x.at[i].get(mode='clip')", "x.at[i].get(mode='fill')",
    "v.at[7].get(fill_value=5.)", "v.at[2].get(fill_value=5.)", "v.at[i].get(fill_value=5.)",
    "v.at[7].get(mode='fill', fill_value=5.)", "v.at[2**40].get(mode='clip')",
    "v.at[7].get(wrap_negative_indices=False)", "v.at[-1].get(wrap_negative_indices=False)",
    "v.at[2].get(wrap_negative_indices=False)", "x.at[-1, 1].get(wrap_negative_indices=False)",
    "x.at[i, -1].get(wrap_negative_indices=False)",
    "v.at[-1].get(mode='clip', wrap_negative_indices=False)",
]

CASES = {e: f"show({e!r})" for e in EXPRS}

# Differences from JAX that are understood; strict, so a fix shows as XPASS.
KNOWN = {}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "indexing_strategy", PRELUDE, CASES, KNOWN, every=8)
