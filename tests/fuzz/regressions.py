"""Hand-written fuzz programs: the bugs found by fuzzing xjit against JAX
(issue 16), each kept as a recorded case so it stays fixed."""
from __future__ import annotations


def _arr(dtype, shape, data):
    return {"dtype": dtype, "shape": list(shape), "data": data}


def _at(name, a, idx, method, upd, mode=None):
    args = [a] + ([upd] if upd is not None else [])
    arrays = [idx["array"]] if "array" in idx else []
    return {"name": name, "op": "at", "params": {"idx": idx, "method": method, "mode": mode},
            "args": args + arrays}


REGRESSIONS = [
    {"name": "take-clip-negative", "op": "shape", "params": {"fn": "take", "mode": "clip"},
     "args": [_arr("int32", (4, 3), list(range(12))), _arr("int32", (3,), [-1, -7, -3])]},
    _at("at-int-add-float", _arr("int32", (2,), [-4, 2]), {"int": 0}, "add", {"py": 0.001}),
    _at("at-int-multiply-half", _arr("int32", (3,), [1, -2, 3]), {"slice": [None, None, 2]},
        "multiply", {"py": 0.5}),
    _at("at-int8-add-inf", _arr("int8", (3,), [1, 2, 3]), {"slice": [None, 2, None]}, "add",
        _arr("float32", (), ["inf"])),
    {"name": "index-int-overflow", "op": "index", "params": {"idx": {"int": 2 ** 70}},
     "args": [_arr("int32", (5,), [0, 1, 2, 3, 4])]},
    {"name": "inner-bool-nan", "op": "binary", "params": {"fn": "inner"},
     "args": [_arr("bool", (), [False]), _arr("float32", (), ["nan"])]},
    {"name": "multiply-bool-inf", "op": "binary", "params": {"fn": "multiply"},
     "args": [_arr("bool", (3,), [False, True, False]), _arr("float32", (3,), ["inf", 2.0, "nan"])]},
    {"name": "index-empty-array", "op": "index", "params": {"idx": {"array": _arr("int32", (0,), [])}},
     "args": [_arr("float32", (0,), []), _arr("int32", (0,), [])]},
    {"name": "index-empty-mask", "op": "index", "params": {"idx": {"mask": _arr("bool", (0,), [])}},
     "args": [_arr("float32", (0,), []), _arr("bool", (0,), [])]},
    {"name": "median-empty-rows", "op": "reduction", "params": {"fn": "median", "axis": 1},
     "args": [_arr("float32", (0, 4), [])]},
    _at("at-empty-slice", _arr("float32", (0,), []), {"slice": [None, None, 2]}, "set", {"py": 1.0}),
    {"name": "logaddexp-complex64", "op": "binary", "params": {"fn": "logaddexp"},
     "args": [_arr("complex64", (), [[1.0, 0.0]]), _arr("complex64", (), [[0.0, 0.0]])]},
    {"name": "logaddexp2-complex64", "op": "binary", "params": {"fn": "logaddexp2"},
     "args": [_arr("complex64", (2,), [[1.0, 3.0], [-1.0, 0.5]]),
              _arr("complex64", (2,), [[0.0, 0.0], [2.0, -1.0]])]},
    {"name": "logaddexp-grad-inf", "op": "binary", "params": {"fn": "logaddexp"},
     "args": [_arr("float32", (2,), ["inf", 1.0]), _arr("float32", (2,), [1.0, "inf"])]},
    _at("at-uint8-max-negative", _arr("uint8", (1,), [1]), {"ellipsis": True}, "max", {"py": -1}),
    {"name": "outer-bool", "op": "binary", "params": {"fn": "outer"},
     "args": [_arr("bool", (2,), [True, False]), _arr("bool", (2,), [True, True])]},
    {"name": "index-0d-mask", "op": "index", "params": {"idx": {"mask": _arr("bool", (), [True])}},
     "args": [_arr("float32", (), [1.5]), _arr("bool", (), [True])]},
    {"name": "real-python-float", "op": "unary", "params": {"fn": "real"}, "args": [{"py": 0.0}]},
    {"name": "imag-python-int", "op": "unary", "params": {"fn": "imag"}, "args": [{"py": 1}]},
    {"name": "logical-not-weak", "op": "unary", "params": {"fn": "logical_not"},
     "args": [{"py": 7}]},
    {"name": "argmax-axis-0d", "op": "reduction", "params": {"fn": "argmax", "axis": 0},
     "args": [_arr("int32", (), [1])]},
    {"name": "concatenate-ranks", "op": "shape", "params": {"fn": "concatenate", "axis": 0},
     "args": [_arr("float32", (2,), [1, 1]), _arr("float32", (2, 2), [1, 1, 1, 1])]},
    {"name": "broadcast-ranks", "op": "binary", "params": {"fn": "add"},
     "args": [_arr("float32", (3,), [1, 1, 1]), _arr("float32", (2, 2), [1, 1, 1, 1])]},
    {"name": "reshape-two-unknown", "op": "shape", "params": {"fn": "reshape", "shape": [-1, -1]},
     "args": [_arr("float32", (4,), [1, 2, 3, 4])]},
    {"name": "repeat-0d-axis", "op": "shape", "params": {"fn": "repeat", "repeats": 2, "axis": 1},
     "args": [_arr("int16", (), [3])]},
    {"name": "take-along-axis-none-0d", "op": "shape",
     "params": {"fn": "take_along_axis", "axis": None},
     "args": [_arr("uint8", (), [3]), _arr("int32", (), [0])]},
    {"name": "take-empty-indices", "op": "shape", "params": {"fn": "take", "mode": None},
     "args": [_arr("float32", (3,), [1, 2, 3]), _arr("int32", (0,), [])]},
]
