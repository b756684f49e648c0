"""Random jnp/lax programs for differential fuzzing against JAX.

A program is plain JSON: ``{"op": name, "params": {...}, "args": [...]}``.
Each argument is a Python scalar (``{"py": value}``, so weak typing is
exercised) or an array (``{"dtype", "shape", "data"}``, data flat, with
``"nan"``/``"inf"``/``"-inf"`` spelled out). ``generate(seed)`` makes one
from a seed alone, so a run is reproducible and a recorded case needs no
generator at all: ``build`` turns the JSON back into a function of the
arguments for either namespace (xjit or jax), and ``materialize`` the
arguments.
"""
from __future__ import annotations

import random

import numpy as np

try:
    import ml_dtypes
    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - jaxlib always brings ml_dtypes
    _BF16 = None

DTYPES = ["bool", "int8", "int16", "int32", "uint8", "uint32", "int64", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64"]
FLOATS = ["float16", "bfloat16", "float32", "float32", "float32"]
SHAPES = [(), (), (0,), (1,), (3,), (4,), (2, 3), (3, 3), (0, 4), (2, 1, 3), (2, 0)]


def np_dtype(name):
    return _BF16 if name == "bfloat16" else np.dtype(name)


# -- argument generation


def _values(rng, dtype, n, special):
    kind = np_dtype(dtype).kind
    if dtype == "bool":
        return [rng.random() < 0.5 for _ in range(n)]
    if kind in "iu":
        info = np.iinfo(np_dtype(dtype))
        out = []
        for _ in range(n):
            r = rng.random()
            if special and r < 0.08:
                out.append(int(rng.choice([info.min, info.max])))
            else:
                lo = 0 if kind == "u" else -6
                out.append(rng.randint(lo, 6))
        return out
    out = []
    for _ in range(n):
        r = rng.random()
        if special and r < 0.06:
            out.append(rng.choice(["nan", "inf", "-inf", -0.0]))
        elif special and r < 0.09:
            out.append(rng.choice([1e30, -1e30, 65504.0, 1e-30]))
        else:
            out.append(round(rng.uniform(-4, 4), 3))
    if kind == "c":
        return [[v, round(rng.uniform(-2, 2), 3)] if not isinstance(v, str) else [v, 0.0]
                for v in out]
    return out


def rand_array(rng, dtype=None, shape=None, special=True):
    dtype = dtype or rng.choice(DTYPES)
    shape = tuple(shape if shape is not None else rng.choice(SHAPES))
    n = int(np.prod(shape, dtype=np.int64))
    return {"dtype": dtype, "shape": list(shape), "data": _values(rng, dtype, n, special)}


def rand_scalar(rng, kind=None):
    kind = kind or rng.choice(["int", "float", "bool", "complex"] + ["int", "float"] * 2)
    if kind == "int":
        return {"py": rng.randint(-5, 5)}
    if kind == "bool":
        return {"py": rng.random() < 0.5}
    if kind == "complex":
        return {"py": [round(rng.uniform(-2, 2), 2), round(rng.uniform(-2, 2), 2)], "complex": True}
    return {"py": round(rng.uniform(-3, 3), 2)}


def rand_operand(rng, dtype=None, shape=None):
    if dtype is None and shape is None and rng.random() < 0.15:
        return rand_scalar(rng)
    return rand_array(rng, dtype, shape)


def _decode(v):
    if isinstance(v, str):
        return float(v)
    return v


def materialize(arg):
    """The argument as the program receives it (numpy array or Python scalar)."""
    if "py" in arg:
        v = arg["py"]
        return complex(*v) if arg.get("complex") else v
    dt = np_dtype(arg["dtype"])
    data = arg["data"]
    if dt.kind == "c":
        flat = [complex(_decode(re), _decode(im)) for re, im in data]
    else:
        flat = [_decode(v) for v in data]
    wide = np.complex128 if dt.kind == "c" else (None if dt.kind in "biu" else np.float64)
    with np.errstate(all="ignore"):
        return np.array(flat, dtype=wide).astype(dt).reshape(arg["shape"])


def _sorted(data):
    return sorted(data, key=lambda v: float(v[0] if isinstance(v, list) else v))


def _ndim(arg):
    return 0 if "py" in arg else len(arg["shape"])


def _shape(arg):
    return () if "py" in arg else tuple(arg["shape"])


def _rand_axis(rng, nd, allow_none=True, allow_bad=True):
    choices = list(range(-nd, nd)) if nd else []
    if allow_none:
        choices.append(None)
    if allow_bad and rng.random() < 0.08:
        return nd + rng.randint(0, 2)
    return rng.choice(choices) if choices else None


# -- the operations
#
# Each entry: name -> (make(rng) -> (params, args), build(ns, params) -> f(*args), grad_ok).
# ``ns`` has ``jax``, ``jnp`` and ``lax`` attributes.

OPS = {}


def op(name, grad=True):
    def deco(make):
        OPS[name] = [make, None, grad]
        return make
    return deco


def builder(name):
    def deco(build):
        OPS[name][1] = build
        return build
    return deco


UNARY = ["sin", "cos", "tan", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt",
         "cbrt", "abs", "negative", "sign", "floor", "ceil", "round", "rint", "trunc", "tanh",
         "sinh", "cosh", "arctan", "arcsin", "arccos", "arcsinh", "arctanh", "square",
         "reciprocal", "logical_not", "isnan", "isfinite", "isinf", "signbit", "real", "imag",
         "conj", "angle", "invert", "positive", "deg2rad", "sinc", "fabs", "spacing", "i0",
         "nan_to_num", "isneginf", "isposinf", "exp", "frexp", "modf", "bitwise_count"]
BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder",
          "fmod", "power", "float_power", "maximum", "minimum", "arctan2", "hypot", "logaddexp",
          "logaddexp2", "equal", "not_equal", "less", "greater_equal", "logical_and",
          "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
          "right_shift", "copysign", "nextafter", "heaviside", "fmax", "fmin", "gcd", "lcm",
          "ldexp", "divmod", "isclose", "inner", "outer", "kron", "dot", "matmul", "vdot"]
REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin", "any",
              "all", "cumsum", "cumprod", "median", "nansum", "nanmax", "nanmean", "ptp",
              "count_nonzero", "average", "logsumexp", "sort", "argsort", "diff"]


@op("unary")
def _(rng):
    return {"fn": rng.choice(UNARY)}, [rand_operand(rng)]


@builder("unary")
def _(ns, p):
    if p["fn"] == "logsumexp":
        return ns.jax.nn.logsumexp
    return getattr(ns.jnp, p["fn"])


@op("binary")
def _(rng):
    a = rand_operand(rng)
    r = rng.random()
    if r < 0.5 and "py" not in a:  # same shape, maybe another dtype
        b = rand_array(rng, shape=_shape(a))
    elif r < 0.7 and "py" not in a:
        b = rand_array(rng, dtype=a["dtype"], shape=_shape(a)[1:])
    else:
        b = rand_operand(rng)
    return {"fn": rng.choice(BINARY)}, [a, b]


@builder("binary")
def _(ns, p):
    return getattr(ns.jnp, p["fn"])


@op("reduction")
def _(rng):
    a = rand_array(rng)
    fn = rng.choice(REDUCTIONS)
    params = {"fn": fn, "axis": _rand_axis(rng, _ndim(a))}
    if fn not in ("cumsum", "cumprod", "median", "sort", "argsort", "diff", "average",
                  "logsumexp") and rng.random() < 0.3:
        params["keepdims"] = True
    if fn in ("sort", "argsort", "diff") and params["axis"] is None:
        params["axis"] = -1
    return params, [a]


@builder("reduction")
def _(ns, p):
    kw = {"axis": p["axis"]}
    if p.get("keepdims"):
        kw["keepdims"] = True
    if p["fn"] == "logsumexp":
        return lambda a: ns.jax.nn.logsumexp(a, **kw)
    fn = getattr(ns.jnp, p["fn"])
    return lambda a: fn(a, **kw)


SHAPE_FNS = ["reshape", "transpose", "swapaxes", "squeeze", "expand_dims", "flip", "roll",
             "tile", "repeat", "pad", "ravel", "broadcast_to", "moveaxis", "tril", "triu",
             "diagonal", "trace", "concatenate", "stack", "split", "atleast_2d", "rot90",
             "flatnonzero_sized", "where3", "clip", "astype", "take", "take_along_axis",
             "unique_sized", "searchsorted", "nonzero_sized", "cross", "einsum_ij", "tensordot",
             "select", "append", "delete", "insert"]


@op("shape")
def _(rng):
    fn = rng.choice(SHAPE_FNS)
    a = rand_array(rng)
    nd = _ndim(a)
    p = {"fn": fn}
    args = [a]
    if fn == "reshape":
        size = int(np.prod(_shape(a), dtype=np.int64))
        cands = [[size], [-1], [1, -1], [-1, 1], [-1, -1], [size + 1], [2, -1]]
        p["shape"] = rng.choice(cands)
    elif fn in ("swapaxes", "moveaxis"):
        p["a1"], p["a2"] = _rand_axis(rng, nd, False), _rand_axis(rng, nd, False)
    elif fn in ("squeeze", "flip", "expand_dims", "diagonal", "trace", "concatenate", "stack",
                "split", "take", "delete", "insert", "append"):
        p["axis"] = _rand_axis(rng, nd + (fn in ("expand_dims", "stack")), fn not in (
            "expand_dims", "diagonal", "trace", "stack"))
    elif fn == "roll":
        p["shift"], p["axis"] = rng.randint(-4, 4), _rand_axis(rng, nd)
    elif fn == "tile":
        p["reps"] = rng.choice([2, [2, 1], [0], [1, 2, 2]])
    elif fn == "repeat":
        p["repeats"], p["axis"] = rng.choice([0, 1, 2, 3]), _rand_axis(rng, nd)
    elif fn == "pad":
        p["width"] = rng.choice([0, 1, 2, [1, 0]])
        p["mode"] = rng.choice(["constant", "edge", "reflect", "symmetric", "wrap"])
    elif fn == "broadcast_to":
        s = list(_shape(a))
        p["shape"] = rng.choice([[2] + s, [3] + [max(d, 1) for d in s], s[1:] or [2], [0] + s])
    elif fn in ("tril", "triu", "rot90"):
        p["k"] = rng.randint(-2, 2)
    elif fn == "clip":
        p["lo"], p["hi"] = rng.choice([(-1, 1), (0, None), (None, 2), (2, -2)])
    elif fn == "astype":
        p["dtype"] = rng.choice(DTYPES)
    elif fn == "take":
        p["mode"] = rng.choice([None, "clip", "wrap", "fill"])
        args.append(rand_array(rng, rng.choice(["int32", "int8", "uint8"]),
                               rng.choice([(), (0,), (3,), (2, 2)])))
    elif fn == "take_along_axis":
        p["axis"] = _rand_axis(rng, nd, False)
        ishape = list(_shape(a))
        if ishape and rng.random() < 0.7:
            ishape[p["axis"] if isinstance(p["axis"], int) and -nd <= p["axis"] < nd else 0] = 2
        args.append(rand_array(rng, "int32", ishape))
    elif fn in ("unique_sized", "nonzero_sized", "flatnonzero_sized"):
        p["size"] = rng.choice([0, 1, 3, 5])
    elif fn == "searchsorted":
        p["side"] = rng.choice(["left", "right"])
        srt = rand_array(rng, a["dtype"], (4,))
        srt["data"] = _sorted(srt["data"])
        args = [srt, rand_operand(rng, a["dtype"])]  # sorted: unsorted input has no answer
    elif fn == "where3":
        args = [rand_array(rng, "bool", _shape(a)), a, rand_operand(rng)]
    elif fn in ("cross",):
        args = [rand_array(rng, a["dtype"], rng.choice([(3,), (2,), (2, 3)])),
                rand_array(rng, rng.choice(DTYPES), rng.choice([(3,), (2,), (2, 3)]))]
    elif fn in ("einsum_ij", "tensordot"):
        args = [rand_array(rng, shape=rng.choice([(2, 3), (3,), (3, 3)])),
                rand_array(rng, shape=rng.choice([(3, 2), (3,), (3, 3)]))]
    elif fn == "select":
        args = [rand_array(rng, "bool", _shape(a)), a, rand_array(rng, shape=_shape(a))]
    if fn in ("insert", "append"):
        args.append(rand_operand(rng, a["dtype"]))
        if fn == "insert":
            p["obj"] = rng.randint(-1, 2)
    if fn == "delete":
        p["obj"] = rng.randint(-1, 2)
    if fn in ("concatenate", "stack"):
        args.append(rand_array(rng, shape=rng.choice([_shape(a), _shape(a)[1:] or (1,)])))
    return p, args


@builder("shape")
def _(ns, p):
    jnp, fn = ns.jnp, p["fn"]
    table = {
        "reshape": lambda a: jnp.reshape(a, p["shape"]),
        "transpose": jnp.transpose,
        "swapaxes": lambda a: jnp.swapaxes(a, p["a1"], p["a2"]),
        "moveaxis": lambda a: jnp.moveaxis(a, p["a1"], p["a2"]),
        "squeeze": lambda a: jnp.squeeze(a, p["axis"]),
        "expand_dims": lambda a: jnp.expand_dims(a, p["axis"]),
        "flip": lambda a: jnp.flip(a, p["axis"]),
        "roll": lambda a: jnp.roll(a, p["shift"], p["axis"]),
        "tile": lambda a: jnp.tile(a, p["reps"]),
        "repeat": lambda a: jnp.repeat(a, p["repeats"], p["axis"]),
        "pad": lambda a: jnp.pad(a, p["width"], mode=p["mode"]),
        "ravel": jnp.ravel,
        "broadcast_to": lambda a: jnp.broadcast_to(a, p["shape"]),
        "tril": lambda a: jnp.tril(a, p["k"]),
        "triu": lambda a: jnp.triu(a, p["k"]),
        "rot90": lambda a: jnp.rot90(a, p["k"]),
        "diagonal": lambda a: jnp.diagonal(a, 0, 0, p["axis"] if p["axis"] else 1),
        "trace": lambda a: jnp.trace(a, 0, 0, p["axis"] if p["axis"] else 1),
        "concatenate": lambda a, b: jnp.concatenate([a, b], axis=p["axis"]),
        "stack": lambda a, b: jnp.stack([a, b], axis=p["axis"]),
        "split": lambda a: jnp.split(a, 2, axis=p["axis"] if p["axis"] is not None else 0),
        "atleast_2d": jnp.atleast_2d,
        "flatnonzero_sized": lambda a: jnp.flatnonzero(a, size=p["size"]),
        "nonzero_sized": lambda a: jnp.nonzero(a, size=p["size"]),
        "unique_sized": lambda a: jnp.unique(a, size=p["size"]),
        "where3": jnp.where,
        "clip": lambda a: jnp.clip(a, p["lo"], p["hi"]),
        "astype": lambda a: jnp.asarray(a).astype(p["dtype"]),
        "take": lambda a, i: jnp.take(a, i, axis=0 if jnp.ndim(a) else None, mode=p["mode"]),
        "take_along_axis": lambda a, i: jnp.take_along_axis(a, i, axis=p["axis"]),
        "searchsorted": lambda a, v: jnp.searchsorted(a, v, side=p["side"]),
        "cross": jnp.cross,
        "einsum_ij": lambda a, b: jnp.einsum("...i,i...->...", a, b),
        "tensordot": lambda a, b: jnp.tensordot(a, b, 1),
        "select": lambda c, a, b: jnp.select([c], [a], b),
        "append": lambda a, v: jnp.append(a, v, axis=p["axis"]),
        "insert": lambda a, v: jnp.insert(a, p["obj"], v, axis=p["axis"]),
        "delete": lambda a: jnp.delete(a, p["obj"], axis=p["axis"]),
    }
    return table[fn]


def _rand_index(rng, shape):
    """A NumPy index for ``shape``: ints (maybe out of range), slices, None,
    Ellipsis, integer arrays and boolean masks."""
    nd = len(shape)
    r = rng.random()
    if r < 0.15 and nd:
        return {"int": rng.randint(-shape[0] - 1, shape[0] + 1) if shape[0] else rng.randint(-1, 1)}
    if r < 0.3:
        return {"slice": [rng.choice([None, -1, 0, 1, 2, 5]), rng.choice([None, -2, 0, 1, 3, 9]),
                          rng.choice([None, 1, 2, -1, -2])]}
    if r < 0.5:
        return {"array": rand_array(rng, rng.choice(["int32", "int32", "uint8", "int8"]),
                                    rng.choice([(), (0,), (2,), (3,), (2, 2)]), special=False)}
    if r < 0.65:
        return {"mask": rand_array(rng, "bool", shape[:rng.randint(0, nd)] if nd else ())}
    if r < 0.75:
        return {"tuple": [{"none": True}, {"ellipsis": True}] if rng.random() < 0.5
                else [{"ellipsis": True}, {"int": 0}]}
    if r < 0.85:
        return {"tuple": [{"slice": [None, None, -1]}, {"array": rand_array(
            rng, "int32", (2,), special=False)}]}
    if r < 0.9:
        return {"int": rng.choice([2 ** 31, -2 ** 31 - 1, 2 ** 70])}
    return {"ellipsis": True}


def build_index(ns, spec, dyn):
    """``spec`` made into an index; arrays come from ``dyn`` (traced under jit)."""
    if "int" in spec:
        return spec["int"]
    if "slice" in spec:
        return slice(*spec["slice"])
    if "none" in spec:
        return None
    if "ellipsis" in spec:
        return Ellipsis
    if "array" in spec or "mask" in spec:
        return dyn.pop(0)
    return tuple(build_index(ns, s, dyn) for s in spec["tuple"])


def _index_arrays(spec):
    if "array" in spec:
        return [spec["array"]]
    if "mask" in spec:
        return [spec["mask"]]
    if "tuple" in spec:
        return [a for s in spec["tuple"] for a in _index_arrays(s)]
    return []


AT_METHODS = ["get", "set", "add", "multiply", "min", "max", "divide", "power", "subtract"]


@op("index")
def _(rng):
    a = rand_array(rng)
    idx = _rand_index(rng, _shape(a))
    return {"idx": idx, "static_index": rng.random() < 0.3}, [a] + _index_arrays(idx)


@builder("index")
def _(ns, p):
    def f(a, *arrays):
        dyn = list(arrays)
        if p.get("static_index"):  # concrete numpy indices: the static path
            dyn = [np.asarray(x) for x in dyn] if all(isinstance(x, np.ndarray) for x in dyn) else dyn
        return ns.jnp.asarray(a)[build_index(ns, p["idx"], dyn)]
    return f


@op("at")
def _(rng):
    a = rand_array(rng)
    idx = _rand_index(rng, _shape(a))
    method = rng.choice(AT_METHODS)
    params = {"idx": idx, "method": method,
              "mode": rng.choice([None, None, "clip", "drop", "fill", "promise_in_bounds"])}
    if method != "get":
        upd = rand_operand(rng, rng.choice([a["dtype"], None, "float32"]),
                           rng.choice([(), None]))
        return params, [a, upd] + _index_arrays(idx)
    return params, [a] + _index_arrays(idx)


@builder("at")
def _(ns, p):
    def f(a, *rest):
        if p["method"] == "get":
            upd, arrays = None, list(rest)
        else:
            upd, arrays = rest[0], list(rest[1:])
        ref = ns.jnp.asarray(a).at[build_index(ns, p["idx"], arrays)]
        kw = {"mode": p["mode"]} if p["mode"] else {}
        meth = getattr(ref, p["method"])
        return meth(**kw) if upd is None else meth(upd, **kw)
    return f


LINALG = ["inv", "det", "slogdet", "solve", "norm", "cholesky", "qr", "eigh", "svd_vals",
          "matrix_power", "pinv", "lstsq_x", "eigvalsh", "matrix_rank", "tensorinv_2"]


@op("linalg")
def _(rng):
    fn = rng.choice(LINALG)
    n = rng.choice([0, 1, 2, 3])
    dt = rng.choice(["float32", "float32", "float64", "complex64", "int32"])
    a = rand_array(rng, dt, rng.choice([(n, n), (2, n, n), (n, n + 1)]), special=rng.random() < .2)
    args = [a]
    if fn in ("solve", "lstsq_x"):
        args.append(rand_array(rng, dt, (a["shape"][-2],), special=False))
    return {"fn": fn}, args


@builder("linalg")
def _(ns, p):
    la = ns.jnp.linalg
    table = {"svd_vals": lambda a: la.svd(a, compute_uv=False),
             "matrix_power": lambda a: la.matrix_power(a, 3),
             "lstsq_x": lambda a, b: la.lstsq(a, b)[0],
             "tensorinv_2": lambda a: la.tensorinv(a, 1)}
    return table.get(p["fn"]) or getattr(la, p["fn"])


LAX_FNS = ["add", "mul", "sub", "div", "rem", "max", "pow", "atan2", "nextafter", "clamp",
           "select", "dynamic_slice", "dynamic_update_slice", "cumsum", "cummax", "rev",
           "convert_element_type", "bitcast_convert_type", "pad", "sort", "top_k", "argmax",
           "reduce_max", "integer_pow", "square", "rsqrt", "erf", "lgamma", "digamma",
           "population_count", "shift_right_logical", "expand_dims", "squeeze", "iota_like",
           "reduce_precision", "round", "is_finite", "sign", "logistic", "erf_inv"]


@op("lax")
def _(rng):
    fn = rng.choice(LAX_FNS)
    a = rand_operand(rng)
    nd = _ndim(a)
    p = {"fn": fn}
    args = [a]
    if fn in ("add", "mul", "sub", "div", "rem", "max", "pow", "atan2", "nextafter",
              "shift_right_logical"):
        same = "py" not in a and rng.random() < 0.8
        args.append(rand_array(rng, a["dtype"], _shape(a)) if same else rand_operand(rng))
    elif fn == "clamp":
        args = [rand_operand(rng, None if "py" in a else a["dtype"], ()), a,
                rand_operand(rng, None if "py" in a else a["dtype"], ())]
    elif fn == "select":
        args = [rand_array(rng, "bool", _shape(a)), a, rand_array(rng, None if "py" in a else
                                                                  a["dtype"], _shape(a))]
    elif fn == "dynamic_slice":
        p["starts"] = [rng.choice([0, 1, -1, 5, 2 ** 40]) for _ in range(nd)]
        p["sizes"] = [rng.randint(0, max(d, 1) + 1) for d in _shape(a)]
    elif fn == "dynamic_update_slice":
        p["starts"] = [rng.choice([0, 1, -1, 5]) for _ in range(nd)]
        args.append(rand_array(rng, None if "py" in a else a["dtype"],
                               [rng.randint(0, d) if d else 0 for d in _shape(a)]))
    elif fn in ("cumsum", "cummax", "rev", "sort", "argmax", "reduce_max", "expand_dims",
                "squeeze", "top_k"):
        p["axis"] = _rand_axis(rng, nd, False)
    elif fn in ("convert_element_type", "bitcast_convert_type"):
        p["dtype"] = rng.choice(DTYPES)
    elif fn == "pad":
        p["cfg"] = [[rng.randint(-1, 2), rng.randint(-1, 2), rng.randint(0, 1)] for _ in range(nd)]
    elif fn == "integer_pow":
        p["y"] = rng.choice([-2, -1, 0, 1, 2, 3])
    elif fn == "reduce_precision":
        p["e"], p["m"] = rng.choice([(5, 10), (8, 7), (4, 3)])
    return p, args


@builder("lax")
def _(ns, p):
    lax, fn = ns.lax, p["fn"]
    table = {
        "dynamic_slice": lambda a: lax.dynamic_slice(a, p["starts"], p["sizes"]),
        "dynamic_update_slice": lambda a, u: lax.dynamic_update_slice(a, u, p["starts"]),
        "cumsum": lambda a: lax.cumsum(a, axis=p["axis"] or 0),
        "cummax": lambda a: lax.cummax(a, axis=p["axis"] or 0),
        "rev": lambda a: lax.rev(a, (p["axis"] or 0,)),
        "sort": lambda a: lax.sort(a, dimension=p["axis"] if p["axis"] is not None else -1),
        "top_k": lambda a: lax.top_k(a, 2),
        "argmax": lambda a: lax.argmax(a, p["axis"] or 0, np.int32),
        "reduce_max": lambda a: lax.reduce_max(a, (p["axis"] or 0,)),
        "expand_dims": lambda a: lax.expand_dims(a, (p["axis"] or 0,)),
        "squeeze": lambda a: lax.squeeze(a, (p["axis"] or 0,)),
        "convert_element_type": lambda a: lax.convert_element_type(a, np_dtype(p["dtype"])),
        "bitcast_convert_type": lambda a: lax.bitcast_convert_type(a, np_dtype(p["dtype"])),
        "pad": lambda a: lax.pad(a, ns.jnp.zeros((), ns.jnp.asarray(a).dtype),
                                 [tuple(c) for c in p["cfg"]]),
        "integer_pow": lambda a: lax.integer_pow(a, p["y"]),
        "reduce_precision": lambda a: lax.reduce_precision(a, p["e"], p["m"]),
        "iota_like": lambda a: lax.broadcasted_iota(ns.jnp.asarray(a).dtype,
                                                    ns.jnp.shape(a), 0),
    }
    return table.get(fn) or getattr(lax, fn)


@op("random", grad=False)
def _(rng):
    fn = rng.choice(["normal", "uniform", "randint", "bernoulli", "permutation", "choice",
                     "gamma", "categorical", "split", "bits", "exponential", "truncated_normal"])
    return {"fn": fn, "shape": list(rng.choice([(), (3,), (2, 2), (0,)])),
            "dtype": rng.choice(["float32", "float16", "bfloat16", "float64"])}, [
        rand_array(rng, "uint32", (2,), special=False)]


@builder("random")
def _(ns, p):
    r, shape, dt = ns.jax.random, tuple(p["shape"]), np_dtype(p["dtype"])

    def f(k):
        key = ns.jnp.asarray(k, dtype=np.uint32)
        table = {
            "normal": lambda: r.normal(key, shape, dt),
            "uniform": lambda: r.uniform(key, shape, dt, -1.0, 2.0),
            "randint": lambda: r.randint(key, shape, -5, 7),
            "bernoulli": lambda: r.bernoulli(key, 0.3, shape),
            "permutation": lambda: r.permutation(key, 5),
            "choice": lambda: r.choice(key, 4, shape),
            "gamma": lambda: r.gamma(key, 2.0, shape, dt),
            "categorical": lambda: r.categorical(key, ns.jnp.zeros((4,)), shape=shape),
            "split": lambda: r.split(key, 3),
            "bits": lambda: r.bits(key, shape),
            "exponential": lambda: r.exponential(key, shape, dt),
            "truncated_normal": lambda: r.truncated_normal(key, -1.0, 1.5, shape, dt),
        }
        return table[p["fn"]]()
    return f


# op kinds and their weights in a random program
_WEIGHTS = {"unary": 14, "binary": 16, "reduction": 12, "shape": 16, "index": 12, "at": 12,
            "linalg": 5, "lax": 10, "random": 3}


def generate(seed):
    """One random program, a function of ``seed`` alone."""
    rng = random.Random(seed)
    kinds = list(_WEIGHTS)
    kind = rng.choices(kinds, weights=[_WEIGHTS[k] for k in kinds])[0]
    params, args = OPS[kind][0](rng)
    prog = {"seed": seed, "op": kind, "params": params, "args": args}
    # an alternative first argument for the vmapped run (same shape and dtype)
    if args and "py" not in args[0]:
        a0 = args[0]
        alt = rand_array(rng, a0["dtype"], a0["shape"])
        if params.get("fn") == "searchsorted":
            alt["data"] = _sorted(alt["data"])
        prog["vmap_alt"] = alt
    return prog


def build(ns, prog):
    return OPS[prog["op"]][1](ns, prog["params"])


def grad_ok(prog):
    return OPS[prog["op"]][2]


def describe(prog):
    """A short readable form: ``op(fn)(args)``."""
    p = prog["params"]
    name = prog["op"] + (f".{p['fn']}" if "fn" in p else "")
    extra = {k: v for k, v in p.items() if k != "fn"}

    def arg(a):
        if "py" in a:
            return repr(materialize(a))
        return f"{a['dtype']}{list(a['shape'])}"
    s = f"{name}({', '.join(arg(a) for a in prog['args'])})"
    return s + (f" {extra}" if extra else "")
