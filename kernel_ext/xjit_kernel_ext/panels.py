"""Panels for ``%%xjit``, built from ``xjit.inspect``'s public API and kept
per function, so a cell that only calls already-compiled functions costs
almost nothing.

A function's jaxpr listing, lint findings and steady-state profile only
change when it is traced again (a new signature), so they are computed once
per *generation* (its cache-miss count and latest trace time) and reused;
later cells only refresh the call statistics. The kernel channel shares the
findings cache, so a cell that traces a function lints it once.
"""
from __future__ import annotations

import math
import os
import re

import xjit
import xjit.inspect as xi
from xjit_widgets import FunctionPanel, PanelData, Timing

from .signature_cache import findings_for, forget, generation, listing_for, sharding_for


class _Mismatch(Exception):
    """Zeros could not be made with exactly the recorded type."""


_PY_ZERO = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def _zeros_like_spec(x):
    """Zeros of a recorded argument's shape, dtype and weak type (a weak
    type matters: profiling a strongly typed stand-in would trace and
    compile a signature the user never called, and show up in their
    function's statistics)."""
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is None or dtype is None or hasattr(x, "__array__"):
        return x  # a concrete value or a static argument: keep it
    jnp = xjit.numpy
    weak = bool(getattr(x, "weak_type", False))
    if weak:
        value = jnp.broadcast_to(jnp.asarray(_PY_ZERO[jnp.dtype(dtype).kind]), shape)
    else:
        value = jnp.zeros(shape, dtype)
    if (value.shape, value.dtype, bool(value.weak_type)) != (tuple(shape), jnp.dtype(dtype), weak):
        raise _Mismatch(f"{value.dtype} {value.shape} for {dtype} {shape}")
    sharding = getattr(x, "sharding", None)  # laid out as the call's was: the same program runs
    return value if sharding is None else xjit.device_put(value, sharding)


def _has_while(listing) -> bool:
    return listing is not None and any(
        "while[" in e.text or e.primitive == "while" for e in listing.eqns)


class Steady:
    """Steady-state run time and first-call transfer of one signature."""

    def __init__(self, prof=None, note: str = ""):
        self.prof = prof
        self.note = note


def _rerun(fid, listing, repeat: int, how):
    """``(how(fun, *args, repeat=repeat, **kwargs), "")`` on arguments of
    the latest traced signature (zeros of the recorded shapes and dtypes,
    static arguments as recorded), or ``(None, why not)``. A while loop's
    trip count may depend on the values, so such functions are not re-run."""
    fun = xi.function(fid)
    if fun is None or not repeat:
        return None, "not measured"
    if _has_while(listing):
        return None, "not re-run: a while loop's trip count depends on the arguments"
    try:
        args, kwargs = xi.abstract_args(fid)
        args = xjit.tree_util.tree_map(_zeros_like_spec, args)
        kwargs = xjit.tree_util.tree_map(_zeros_like_spec, kwargs)
        return how(fun, *args, repeat=repeat, **kwargs), ""
    except _Mismatch:
        return None, "not measured (no stand-in arguments of the recorded types)"
    except Exception as e:  # e.g. key-typed arguments: show what we have
        return None, f"not measured ({type(e).__name__})"


def measure(fid, listing, repeat: int) -> Steady:
    """Time the compiled executable with ``xjit.inspect.profile``, which
    runs the executable directly: the user's call counts are untouched."""
    return Steady(*_rerun(fid, listing, repeat, xi.profile))


# Where ``%%xjit --profile`` writes each function's trace, under the kernel's
# working directory (the notebook's folder): XProf/TensorBoard open
# ``--logdir .xjit/profiles/<function>``, ui.perfetto.dev the
# ``perfetto_trace.json.gz`` of a run.
PROFILE_DIR = os.path.join(".xjit", "profiles")


def export_trace(prof, name: str) -> str | None:
    """Write ``prof`` as ``.xjit/profiles/<name>/plugins/profile/<run>/``
    (``<host>.xplane.pb`` and ``perfetto_trace.json.gz``); returns the
    Perfetto file's path, relative when under the working directory, or
    None when it cannot be written (a read-only folder, a trace running):
    the tab still shows the profile."""
    log_dir = os.path.join(PROFILE_DIR, re.sub(r"[^\w.-]", "_", name) or "function")
    try:
        run = prof.export(log_dir, create_perfetto_trace=True)
    except (OSError, RuntimeError, ValueError):
        return None
    path = os.path.join(run, "perfetto_trace.json.gz")
    rel = os.path.relpath(path)
    return path if rel.startswith(os.pardir) else rel


def device_profile(info, listing, repeat: int):
    """``(xjit.inspect.DeviceProfile or None, why not, Perfetto file or
    None)``: the device time of ``repeat`` runs under XLA's profiler, per
    kernel and source line, written for Perfetto; its runs go to the
    sidebar's timeline too."""
    prof, note = _rerun(info.fun_id, listing, repeat, xi.device_profile)
    if prof is None:
        return prof, note, None
    from . import channel
    ch = channel()
    if ch is not None:
        ch.publish_device(info.fun_id, info.name, prof)
    return prof, note, export_trace(prof, info.name)


class _Entry:
    def __init__(self, gen, panel, steady):
        self.gen, self.panel, self.steady = gen, panel, steady
        self.profile = None  # (DeviceProfile or None, note, Perfetto file), once asked for


class PanelBook:
    """The latest panel of every function a ``%%xjit`` cell used."""

    def __init__(self):
        self._entries: dict[int, _Entry] = {}
        self.by_name: dict[str, FunctionPanel] = {}

    def panel(self, info, *, lint: bool, repeat: int, cell_label,
              profile: bool = False) -> FunctionPanel:
        gen = generation(info)
        entry = self._entries.get(info.fun_id)
        if entry is None or entry.gen != gen or (lint and entry.panel.data.findings is None):
            listing = listing_for(info)
            findings = findings_for(info) if lint else None
            steady = measure(info.fun_id, listing, repeat)
            data = PanelData(info.name, info.filename, info.lineno, listing, findings,
                             timing(info, steady), cell_label, sharding=sharding_for(info))
            entry = _Entry(gen, FunctionPanel(data), steady)
            self._entries[info.fun_id] = entry
        else:
            entry.panel.update_timing(timing(info, entry.steady))
        if profile and entry.profile is None:  # once per generation, like the listing
            entry.profile = device_profile(info, entry.panel.data.listing, repeat)
        if profile or entry.panel.data.profiled:
            entry.panel.set_profile(*(entry.profile if profile else (None, "", None)))
        self.by_name[info.name] = entry.panel
        return entry.panel

    def forget_dead(self, live_ids) -> None:
        """Drop panels of functions the engine no longer reports."""
        for fid in [f for f in self._entries if f not in live_ids]:
            del self._entries[fid]
        forget(live_ids)


def timing(info, steady: Steady) -> Timing:
    first = {"trace": info.trace_s, "lower": info.lower_s, "compile": info.compile_s}
    t = Timing(first, None, info.calls, info.cache_hits, info.cache_misses,
               list(info.recompile_reasons or []))
    prof = steady.prof
    if prof is not None:
        first.update(transfer=prof.transfer_in_s + prof.transfer_out_s, run=prof.run_s)
        t.steady_s, t.steady_runs, t.flops = prof.run_median_s, prof.repeat, prof.flops
        t.memory = {k: v for k, v in (("argument bytes", prof.argument_bytes),
                                      ("output bytes", prof.output_bytes),
                                      ("temp bytes", prof.temp_bytes),
                                      ("peak bytes", prof.peak_bytes)) if v is not None}
        if math.isfinite(prof.run_s) and prof.repeat > 1:
            t.steady_min_s = prof.run_s
    t.note = steady.note
    t.history = [(c.index + 1, c.signature, c.reason) for c in info.compiles]  # 1-based
    t.budget_warning = info.budget_warning
    return t
