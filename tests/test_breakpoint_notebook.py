"""``xjit.debug.breakpoint()`` inside jitted code, in a real kernel driven by
a jupyter_client that answers input requests as JupyterLab does: the
``(jaxdb)`` prompt arrives as ``input_request`` messages (the debugger reads
with ``input()``, which ipykernel routes through the stdin channel) and each
command's answer comes back on iopub. With the extension loaded, the
sidebar's comm gets ``breakpoint`` messages (stopped: the frame and its
locals; continued), from the inspect events the debugger emits.
"""
from __future__ import annotations

import os
import queue
import time
from pathlib import Path

import pytest

jupyter_client = pytest.importorskip("jupyter_client")

ROOT = Path(__file__).resolve().parent.parent

CODE = """\
import xjit, xjit.numpy as jnp

@xjit.jit
def f(x):
    y = jnp.sin(x) * 2.0
    xjit.debug.breakpoint()
    return y + 1.0

print("result", f(jnp.zeros(3)))
"""

# a breakpoint two calls deep: `u`/`d` walk inner -> outer -> the cell
NESTED = """\
import xjit, xjit.numpy as jnp

@xjit.jit
def inner(x):
    y = jnp.sin(x) * 2.0
    xjit.debug.breakpoint()
    return y + 1.0

def outer(p):
    h = p["w"] * 3.0
    return jnp.sum(inner(h))

print("grad", xjit.grad(outer)({"w": jnp.zeros(2)})["w"])
"""


@pytest.fixture(scope="module")
def kernel():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "kernel_ext"), str(ROOT / "widgets"),
                                         str(ROOT / "core"), env.get("PYTHONPATH", "")])
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(env=env)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    yield kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def _run_answering(kc, code, answers, timeout=60):
    """Execute ``code`` with stdin allowed; answer each input request with
    the next of ``answers``. Returns (prompts seen, stream text, reply)."""
    msg_id = kc.execute(code, allow_stdin=True)
    prompts, reply = [], None
    deadline = time.time() + timeout
    while reply is None and time.time() < deadline:
        try:
            req = kc.get_stdin_msg(timeout=0.1)
            prompts.append(req["content"]["prompt"])
            kc.input(answers.pop(0) if answers else "c")
        except queue.Empty:
            pass
        try:
            msg = kc.get_shell_msg(timeout=0.05)
            if msg["parent_header"].get("msg_id") == msg_id:
                reply = msg
        except queue.Empty:
            pass
    text = []
    kc.comm_messages = []
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=0.5)
        except queue.Empty:
            break
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            text.append(msg["content"]["text"])
        if msg["msg_type"] == "comm_msg":
            kc.comm_messages.append(msg["content"]["data"])
    return prompts, "".join(text), reply


def test_breakpoint_prompts_through_jupyter_stdin(kernel):
    kc = kernel
    prompts, text, reply = _run_answering(kc, CODE, ["p y", "p x.shape", "c"])
    assert reply is not None and reply["content"]["status"] == "ok"
    assert prompts == ["(jaxdb) "] * 3, (prompts, text)
    assert "Entering jaxdb" in text and "-> " in text
    assert "array([0., 0., 0.], dtype=float32)" in text  # p y: y = sin(0) * 2
    assert "(3,)" in text
    assert text.index("(3,)") < text.index("result [1. 1. 1.]")  # it waited for `c`


def test_up_down_where_and_errors_as_jdb(kernel):
    """The commands and wording of JAX's ``(jdb)``: ``u``/``d`` move between
    the breakpoint's frame and its callers (up to the cell) and show the
    source there; at either end they say so; ``w`` prints the stack, most
    recent last; ``p`` evaluates in the current frame, whose traced values
    (``h`` is a JVP tracer of the ``grad`` outside ``jit``) are concrete;
    an error is reported on a ``***`` line and the prompt stays."""
    kc = kernel
    answers = ["d", "p y", "u", "p h", "p p['w']", "u", "u", "d", "p y", "d", "p undefined_name",
               "w", "c"]
    prompts, text, reply = _run_answering(kc, NESTED, list(answers))
    assert reply["content"]["status"] == "ok", text
    assert prompts == ["(jaxdb) "] * len(answers), text
    out = text.split("Entering jaxdb:\n", 1)[1].split("grad [")[0]
    assert "At bottommost frame." in out and "At topmost frame." in out
    assert out.index("At bottommost frame.") < out.index("array([0., 0.], dtype=float32)")
    assert "array([0., 0.], dtype=float32)" in out  # y = sin(0) * 2, in inner
    assert out.count("->      return jnp.sum(inner(h))") >= 2  # u, and d back from the cell
    assert "->  print(\"grad\", xjit.grad(outer)" in out  # the cell's top level
    assert "*** NameError: name 'y' is not defined" in out  # p y in outer's frame
    assert "*** NameError: name 'undefined_name' is not defined" in out
    assert "Traceback:\n" in out
    where = out[out.index("Traceback:"):]
    assert where.index("print(\"grad\"") < where.index("return jnp.sum(inner(h))") \
        < where.index("xjit.debug.breakpoint()")
    assert "grad [6. 6.]" in text  # d/dw sum(sin(3w) * 2 + 1) at 0 = 6


def test_without_input_requests_the_breakpoint_reports_and_continues(kernel):
    """A frontend that answers no input requests (nbconvert, papermill,
    `main.sh --headless`) gets the stopped frame printed and the cell goes
    on, instead of failing in the callback."""
    kc = kernel
    msg_id = kc.execute(CODE, allow_stdin=False)
    reply = kc.get_shell_msg(timeout=60)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=60)
    text = []
    while True:
        msg = kc.get_iopub_msg(timeout=5)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            text.append(msg["content"]["text"])
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    text = "".join(text)
    assert reply["content"]["status"] == "ok", text
    assert "Entering jaxdb:" in text and "->      xjit.debug.breakpoint()" in text
    assert "cannot answer input requests; continuing" in text
    assert "result [1. 1. 1.]" in text


def test_breakpoint_events_reach_the_sidebar_comm(kernel):
    """With the extension loaded, the kernel tells the sidebar (over the
    ``xjit`` comm) where the breakpoint stopped, with its locals' reprs,
    and that it continued: schema-valid ``breakpoint`` messages, ``stopped``
    before the prompt's answer changes anything, ``continued`` after."""
    kc = kernel
    _, _, reply = _run_answering(kc, "%load_ext xjit", [])
    assert reply["content"]["status"] == "ok"
    prompts, text, reply = _run_answering(kc, CODE, ["p y", "c"])
    assert reply["content"]["status"] == "ok" and prompts == ["(jaxdb) "] * 2
    from xjit_kernel_ext.protocol import validate_outgoing
    bps = [m for m in kc.comm_messages if m.get("type") == "breakpoint"]
    for m in bps:
        validate_outgoing(m)
    assert [m["status"] for m in bps] == ["stopped", "continued"], kc.comm_messages
    stopped = bps[0]
    assert stopped["function"] == "f"
    assert stopped["location"]["lineno"] == 6  # the breakpoint() line of the cell
    assert stopped["location"]["execution_count"] is not None
    local_reprs = {d["name"]: d["repr"] for d in stopped["locals"]}
    assert local_reprs["y"] == "array([0., 0., 0.], dtype=float32)"
    assert local_reprs["x"] == "array([0., 0., 0.], dtype=float32)"
    # `u` moves the sidebar to the caller's frame too
    prompts, text, reply = _run_answering(kc, NESTED, ["u", "c"])
    assert reply["content"]["status"] == "ok" and prompts == ["(jaxdb) "] * 2, text
    bps = [m for m in kc.comm_messages if m.get("type") == "breakpoint"]
    for m in bps:
        validate_outgoing(m)
    assert [(m["status"], m["function"], m["location"]["lineno"]) for m in bps] == [
        ("stopped", "inner", 6), ("stopped", "outer", 11), ("continued", "inner", 6)]
    assert {d["name"]: d["repr"] for d in bps[1]["locals"]}["h"] == \
        "array([0., 0.], dtype=float32)"


def test_breakpoint_emits_inspect_events(monkeypatch, capsys):
    """In-process: ``xjit.inspect`` subscribers get ``breakpoint`` (the frame:
    file, line, function, locals' reprs) before the prompt reads anything,
    and ``breakpoint_continue`` after it; nothing is computed with nobody
    subscribed."""
    import builtins

    import xjit
    import xjit.inspect
    import xjit.numpy as jnp

    seen, answered = [], []

    def answer(prompt=""):
        answered.append(len(seen))  # how many events had arrived when it asked
        return "c"

    monkeypatch.setattr(builtins, "input", answer)

    @xjit.jit
    def f(x):
        y = x * 3.0
        xjit.debug.breakpoint()
        return y

    kinds = {"breakpoint", "breakpoint_continue"}
    with xjit.inspect.subscribe(seen.append, kinds=kinds):
        out = f(jnp.ones(2))
    assert out.tolist() == [3.0, 3.0]
    assert [e.kind for e in seen] == ["breakpoint", "breakpoint_continue"]
    assert answered == [1]
    ev = seen[0]
    assert (ev.filename, ev.fun_name, ev.details["function"]) == (__file__, "f", "f")
    assert ev.lineno == f.__wrapped__.__code__.co_firstlineno + 3  # from the decorator line
    assert ev.details["locals"]["y"] == "array([3., 3.], dtype=float32)"
    assert ev.details["locals"]["x"] == "array([1., 1.], dtype=float32)"
    f(jnp.ones(2))  # unobserved: still stops and continues
    assert answered == [1, 2] and len(seen) == 2
