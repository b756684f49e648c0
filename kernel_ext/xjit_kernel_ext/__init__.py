"""xjit's IPython kernel extension: live engine state for the JupyterLab panel.

``%load_ext xjit_kernel_ext`` in a notebook starts an ``xjit`` comm channel
(see ``comm.py`` and ``docs/comm-protocol.md``) that streams what
``xjit.inspect`` observes to the "xjit" sidebar of the lab extension shipped
in this package. ``xjit_kernel_ext.lint(f, *args)`` lints a function and
shows its findings in the panel.
"""
from __future__ import annotations

from .comm import XjitChannel
from .protocol import PROTOCOL, TARGET

__all__ = ["PROTOCOL", "TARGET", "XjitChannel", "channel", "lint",
           "load_ipython_extension", "unload_ipython_extension"]

_channel: XjitChannel | None = None


def channel() -> XjitChannel | None:
    """The running channel, or None when the extension is not loaded."""
    return _channel


def load_ipython_extension(ipython):
    global _channel
    if _channel is not None:
        return
    import os
    import xjit.inspect
    # findings, NaN replays and tracebacks never point into the kernel extension
    xjit.inspect.register_exclusion(os.path.dirname(os.path.abspath(__file__)))
    if xjit.config.xjit_recompile_budget is None:  # the notebook's default; plain JAX code has none
        xjit.config.update("xjit_recompile_budget", 8)
    _channel = XjitChannel(ipython)
    _channel.start()


def unload_ipython_extension(ipython):
    global _channel
    if _channel is not None:
        _channel.stop()
        _channel = None


def lint(fun, *args, **kwargs):
    """``xjit.inspect.lint(fun, *args, **kwargs)``, with the findings also
    shown in the panel's Findings section (replacing earlier ones for the
    same function name). Returns the findings."""
    import xjit.inspect
    findings = xjit.inspect.lint(fun, *args, **kwargs)
    if _channel is not None:
        name = getattr(fun, "__name__", None) or getattr(fun, "_name", None) or repr(fun)
        _channel.publish_findings(str(name), findings)
    return findings


def _jupyter_labextension_paths():
    """Where ``jupyter labextension`` finds the prebuilt extension in this package."""
    return [{"src": "labextension", "dest": "xjit-lab"}]
