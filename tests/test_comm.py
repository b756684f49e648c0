"""The kernel side of the xjit comm (kernel_ext/xjit_kernel_ext).

Unit tests drive ``XjitChannel`` with fake comms and the real engine; the last
tests start a real ipykernel and talk to it over ZMQ as JupyterLab would.
"""
from __future__ import annotations

import json
import logging
import os
import queue
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

jsonschema = pytest.importorskip("jsonschema")

import xjit  # noqa: E402
import xjit.numpy as jnp  # noqa: E402
import xjit_kernel_ext  # noqa: E402
from xjit_kernel_ext import XjitChannel, protocol, serialize  # noqa: E402
from xjit_kernel_ext.batching import CallCounter, EventBatcher  # noqa: E402
from xjit_kernel_ext.cells import CellMap  # noqa: E402

FIXTURES = json.loads((ROOT / "tests" / "fixtures" / "comm_messages.json").read_text())


class FakeComm:
    def __init__(self):
        self.sent, self.closed = [], False
        self._on_msg = self._on_close = None

    def send(self, data):
        # what ipykernel does: the payload must survive JSON
        self.sent.append(json.loads(json.dumps(data, allow_nan=False)))

    def on_msg(self, cb):
        self._on_msg = cb

    def on_close(self, cb):
        self._on_close = cb

    def close(self):
        self.closed = True

    def receive(self, data):
        self._on_msg({"content": {"comm_id": "x", "data": data}})


class FakeManager:
    def __init__(self):
        self.targets = {}

    def register_target(self, name, cb):
        self.targets[name] = cb

    def unregister_target(self, name, cb):
        self.targets.pop(name, None)


class FakeEvents:
    def __init__(self):
        self.callbacks = {}

    def register(self, name, cb):
        self.callbacks.setdefault(name, []).append(cb)

    def unregister(self, name, cb):
        self.callbacks[name].remove(cb)


class FakeShell:
    def __init__(self):
        self.events = FakeEvents()
        self.magics = []
        self.execution_count = 1

    def run_line_magic(self, name, line):
        self.magics.append((name, line))


@pytest.fixture
def chan():
    comm = FakeComm()
    shell = FakeShell()

    def create_comm(target_name, data):
        assert target_name == "xjit"
        comm.sent.append(data)  # the comm_open's data
        return comm
    ch = XjitChannel(shell, comm_manager=FakeManager(), create_comm=create_comm)
    ch.start()
    ch.test_comm = comm
    yield ch
    ch.stop()


def types(comm):
    return [m["type"] for m in comm.sent]


# -- schema -------------------------------------------------------------------
def test_schema_is_valid_draft7_and_shipped_with_the_package():
    docs = json.loads((ROOT / "docs" / "comm-protocol.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(docs)
    assert protocol.schema() == docs
    assert docs["definitions"]["protocol"] == {"const": "xjit/2"}
    doc = (ROOT / "docs" / "comm-protocol.md").read_text()
    for t in protocol.KERNEL_TYPES + protocol.FRONTEND_TYPES:
        assert f"`{t}`" in doc, f"message type {t} is not documented"


@pytest.mark.parametrize("case", FIXTURES["valid"], ids=lambda c: c["message"]["type"])
def test_fixture_messages_valid(case):
    check = protocol.validate_outgoing if case["direction"] == "kernel" else protocol.validate_incoming
    check(case["message"])
    # the whole-protocol schema (either direction) accepts it too
    jsonschema.validate(case["message"], protocol.schema())


@pytest.mark.parametrize("case", FIXTURES["invalid"], ids=lambda c: c["why"])
def test_fixture_messages_invalid(case):
    check = protocol.validate_outgoing if case["direction"] == "kernel" else protocol.validate_incoming
    with pytest.raises(protocol.ProtocolError):
        check(case["message"])


def test_every_message_the_channel_sends_is_valid(chan):
    f = xjit.jit(lambda x: jnp.sin(x) * 2)
    f(jnp.ones(3))
    f(jnp.ones(4))
    chan.flush()
    fid = chan.test_comm.sent[-1]["functions"][0]["fun_id"]
    chan.test_comm.receive({"protocol": "xjit/2", "type": "select_function", "fun_id": fid})
    chan.test_comm.receive({"protocol": "xjit/2", "type": "request_state"})
    assert types(chan.test_comm)[0] == "hello"
    assert {"state", "batch", "function"} <= set(types(chan.test_comm))
    for m in chan.test_comm.sent:
        protocol.validate_outgoing(m)


def test_recompile_budget_warning_reaches_the_sidebar(chan):
    """A function over its recompile budget is sent with the warning (the
    panel shows it as a badge) and every compile's reason."""
    import warnings
    f = xjit.jit(lambda x: x * 2)
    old = xjit.config.xjit_recompile_budget
    xjit.config.update("xjit_recompile_budget", 2)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for n in (1, 2, 3):
                f(jnp.ones(n))
    finally:
        xjit.config.update("xjit_recompile_budget", old)
    chan.flush()
    sent = [fn for m in chan.test_comm.sent if m["type"] == "batch" for fn in m["functions"]
            if fn["name"] == "<lambda>" and fn["cache_misses"] == 3]
    assert sent, chan.test_comm.sent
    assert sent[-1]["budget_warning"].startswith("jit(<lambda>) has recompiled 2 times "
                                                 "(xjit_recompile_budget=2)")
    assert [r.split(":")[0] for r in sent[-1]["recompile_reasons"]] == ["different input shape at x"] * 2
    for m in chan.test_comm.sent:
        protocol.validate_outgoing(m)


def test_invalid_outgoing_message_is_not_sent(chan, caplog):
    n = len(chan.test_comm.sent)
    with caplog.at_level(logging.ERROR, logger="xjit_kernel_ext"):
        assert chan.send({"protocol": "xjit/2", "type": "debug", "status": "??", "message": ""}) is False
    assert len(chan.test_comm.sent) == n
    assert "not sending invalid message" in caplog.text


# -- batching -----------------------------------------------------------------
def test_ten_thousand_calls_in_a_cell_send_a_bounded_number_of_messages(chan):
    f = xjit.jit(lambda x: x + 1.0)
    x = jnp.ones(3)
    f(x)
    chan.post_run_cell()
    before = len(chan.test_comm.sent)
    chan.pre_run_cell()
    t0 = time.monotonic()
    for _ in range(10_000):
        f(x)
    elapsed = time.monotonic() - t0
    chan.post_run_cell()
    batches = chan.test_comm.sent[before:]
    assert all(m["type"] == "batch" for m in batches)
    assert 1 <= len(batches) <= elapsed / chan.batcher.interval + 3
    assert len(batches) < 200
    counted = sum(e["count"] for m in batches for e in m["executes"])
    assert counted == 10_000
    assert batches[-1]["functions"][0]["calls"] == 10_001
    assert [m["seq"] for m in batches] == sorted(m["seq"] for m in batches)


def test_batcher_bound_with_a_fake_clock():
    now = [0.0]
    b = EventBatcher(interval=0.1, max_events=5, clock=lambda: now[0])
    flushes = []
    for i in range(10_000):  # 10 000 events spread over 10 simulated seconds
        now[0] = i * 0.001
        b.add_event({"kind": "trace", "fun_id": 1, "i": i})
        if b.due():
            flushes.append(b.take())
    flushes.append(b.take())
    assert len(flushes) <= 10 / 0.1 + 2
    assert sum(len(f[0]) + f[2] for f in flushes) == 10_000  # sent or counted as dropped
    assert all(len(f[0]) <= 5 for f in flushes)
    assert not b.pending()


def test_call_counter_sends_differences_and_keeps_totals():
    c = CallCounter()
    first = c.delta(4, "f", 10, 0.002, now=100.0)
    assert first == {"fun_id": 4, "fun_name": "f", "count": 10, "total_s": pytest.approx(0.02),
                     "last_s": 0.002, "first_time": pytest.approx(99.98), "last_time": 100.0}
    assert c.delta(4, "f", 10, 0.002, now=100.1) is None  # no new calls, nothing to send
    second = c.delta(4, "f", 13, None, now=100.2)
    assert (second["count"], second["first_time"], second["last_s"]) == (3, 100.0, None)
    assert c.totals[4]["count"] == 13 and c.totals[4]["last_time"] == 100.2


def test_calls_outside_a_cell_are_picked_up_by_the_flusher(chan):
    """No cell hooks fire for code run from a comm or a thread (a widget
    callback, say): the background flusher still reports those calls."""
    chan.post_run_cell()
    n = len(chan.test_comm.sent)
    f = xjit.jit(lambda x: x * 3.0)
    f(jnp.ones(2))
    f(jnp.ones(2))
    counted = lambda: sum(e["count"] for m in chan.test_comm.sent[n:]  # noqa: E731
                          if m["type"] == "batch" for e in m["executes"])
    deadline = time.time() + 10
    while time.time() < deadline and counted() < 2:
        time.sleep(0.02)
    assert counted() == 2


def test_no_message_when_nothing_changed(chan):
    chan.flush()
    n = len(chan.test_comm.sent)
    assert chan.flush() is False
    time.sleep(3 * chan.batcher.interval)
    assert len(chan.test_comm.sent) == n


def test_jitted_calls_run_no_channel_code(chan, monkeypatch):
    """The channel does not ask for per-call execute events, so a cached
    call never enters its callback."""
    f = xjit.jit(lambda x: x - 2.0)
    f(jnp.ones(2))
    seen = []
    sub = chan._subscription
    monkeypatch.setattr(sub, "callback", lambda ev: seen.append(ev.kind))
    assert "execute" not in sub.kinds
    for _ in range(100):
        f(jnp.ones(2))
    assert seen == []
    f(jnp.ones(3))  # a retrace does reach it
    assert "trace" in seen


# -- incoming -------------------------------------------------------------------
@pytest.mark.parametrize("case", [c for c in FIXTURES["invalid"] if c["direction"] == "frontend"],
                         ids=lambda c: c["why"])
def test_malformed_incoming_is_ignored_with_a_warning(chan, caplog, case):
    n = len(chan.test_comm.sent)
    with caplog.at_level(logging.WARNING, logger="xjit_kernel_ext"):
        chan.test_comm.receive(case["message"])
    assert len(chan.test_comm.sent) == n  # no reply, no action
    assert chan.shell.magics == []
    assert "ignoring message from the panel" in caplog.text


def test_incoming_that_is_not_json_data_is_ignored(chan, caplog):
    with caplog.at_level(logging.WARNING, logger="xjit_kernel_ext"):
        chan.test_comm._on_msg({"content": {}})  # no data at all
        chan.test_comm.receive(None)
        chan.test_comm.receive(12)
    assert caplog.text.count("ignoring message") == 3


def test_run_debug_runs_only_the_debug_magic(chan):
    chan.test_comm.receive({"protocol": "xjit/2", "type": "run_debug"})
    assert chan.shell.magics == [("debug", "")]
    replies = [m for m in chan.test_comm.sent if m["type"] == "debug"]
    assert [r["status"] for r in replies] == ["started", "finished"]


def test_select_unknown_function_replies_with_an_error(chan):
    chan.test_comm.receive({"protocol": "xjit/2", "type": "select_function", "fun_id": 987654})
    assert chan.test_comm.sent[-1] == {"protocol": "xjit/2", "type": "error",
                                       "message": "no jitted function with id 987654"}


def test_select_function_returns_every_equation_from_the_listing(chan):
    def body(x):
        y = jnp.sin(x)
        return y * 2.0 + 1.0
    f = xjit.jit(body)
    f(jnp.ones(3))
    chan.flush()
    fid = next(fn["fun_id"] for m in chan.test_comm.sent if m["type"] == "batch"
               for fn in m["functions"] if fn["name"] == "body")
    chan.test_comm.receive({"protocol": "xjit/2", "type": "select_function", "fun_id": fid})
    reply = chan.test_comm.sent[-1]
    protocol.validate_outgoing(reply)
    assert reply["type"] == "function" and reply["name"] == "body"
    assert reply["header"] == "{ lambda ; a:f32[3]. let" and reply["footer"] == "in (d,) }"
    assert [(e["index"], e["primitive"], e["text"]) for e in reply["equations"]] == [
        (0, "sin", "b:f32[3] = sin a"), (1, "mul", "c:f32[3] = mul b 2.0:f32[]"),
        (2, "add", "d:f32[3] = add c 1.0:f32[]")]
    # each distinct source line is sent once; equations point at it
    src_line = body.__code__.co_firstlineno
    assert [(s["filename"], s["lineno"]) for s in reply["sources"]] == [
        (__file__, src_line + 1), (__file__, src_line + 2)]
    assert [e["source"] for e in reply["equations"]] == [0, 1, 1]


def test_ten_thousand_equations_are_sent_whole_and_valid(chan):
    """No 200,000-character cap: the panel virtualises the list."""
    def big(x):
        for _ in range(5000):
            x = x * 1.0001 + 0.5
        return x
    f = xjit.jit(big)
    f(1.0)
    chan.flush()
    fid = next(fn["fun_id"] for m in chan.test_comm.sent if m["type"] == "batch"
               for fn in m["functions"] if fn["name"] == "big")
    chan.test_comm.receive({"protocol": "xjit/2", "type": "select_function", "fun_id": fid})
    reply = chan.test_comm.sent[-1]
    protocol.validate_outgoing(reply)
    assert len(reply["equations"]) == 10000
    assert sum(len(e["text"]) for e in reply["equations"]) > 200_000
    last = reply["equations"][-1]
    assert (last["index"], last["primitive"]) == (9999, "add") and last["text"].endswith(" 0.5:f32[]")
    assert len(reply["sources"]) == 1 and {e["source"] for e in reply["equations"]} == {0}


def test_function_without_a_recorded_jaxpr_replies_with_an_empty_listing():
    reply = protocol.message("function", **serialize.listing(4, "f", None, CellMap()))
    protocol.validate_outgoing(reply)
    assert reply["header"] is None and reply["equations"] == []


# -- escaping-related guarantees ----------------------------------------------------
def test_user_strings_pass_through_verbatim_and_json_safe(chan):
    """The kernel escapes nothing: names and messages reach the panel byte for
    byte (the panel renders them as text), and odd values cannot break JSON."""
    evil = "<img src=x onerror=alert(1)>&amp;\u2028\"'"

    def g(x):
        return x * 2.0
    g.__name__ = evil
    g.__qualname__ = evil
    f = xjit.jit(g)
    f(jnp.ones(2))

    class F:  # a Finding with hostile text and a NaN-ish count
        kind, message, filename, lineno, suggestion, count = (
            "print", evil, "<ipython-input-3-abc>", 2, "<b>x</b>", None)
    chan.publish_findings(evil, [F()])
    chan.flush()
    names = [fn["name"] for m in chan.test_comm.sent if m["type"] == "batch" for fn in m["functions"]]
    assert evil in names
    fmsg = next(m for m in chan.test_comm.sent if m["type"] == "findings")
    assert fmsg["findings"][0]["message"] == evil and fmsg["fun_name"] == evil
    assert fmsg["findings"][0]["suggestion"] == "<b>x</b>"
    assert fmsg["findings"][0]["location"]["execution_count"] == 3
    assert protocol.jsonable({"a": float("nan"), "b": (1, float("inf"))}) == {"a": None, "b": [1, None]}


def test_nan_event_is_reported_with_its_source_line(chan):
    def bad(x):
        return jnp.log(x)
    f = xjit.jit(bad)
    with xjit.debug_nans(True):
        with pytest.raises(FloatingPointError):
            f(-jnp.ones(2))
    chan.flush()
    nans = [e for m in chan.test_comm.sent if m["type"] == "batch" for e in m["events"]
            if e["kind"] == "nan"]
    assert nans and nans[-1]["details"]["primitive"] == "log"
    assert nans[-1]["location"]["lineno"] == bad.__code__.co_firstlineno + 1
    assert chan.state()["nan"] == nans[-1]


def test_cell_map_uses_ipython_filenames_and_cell_ids():
    class Compiler:
        _filename_map = {"/tmp/ipykernel_1/98.py": 6}

    class Shell:
        compile = Compiler()
    shell = Shell()
    cm = CellMap(shell)
    cm.begin_cell("cell-uuid-7")
    shell.compile._filename_map["/tmp/ipykernel_1/99.py"] = 7  # IPython compiles the cell
    # while the cell runs, the file it compiled to (a count newer than any
    # known at its start) resolves to it
    assert cm.location("/tmp/ipykernel_1/99.py", 3)["cell_id"] == "cell-uuid-7"
    cm.end_cell(7)
    cm.begin_cell("cell-uuid-8")
    shell.compile._filename_map["/tmp/ipykernel_1/100.py"] = 8
    assert cm.location("/tmp/ipykernel_1/99.py", 3)["cell_id"] == "cell-uuid-7"
    assert cm.location("/tmp/ipykernel_1/100.py", 1)["cell_id"] == "cell-uuid-8"
    cm.end_cell(8)
    assert cm.location("/tmp/ipykernel_1/99.py", 3) == {
        "filename": "/tmp/ipykernel_1/99.py", "lineno": 3, "cell_id": "cell-uuid-7",
        "execution_count": 7}
    assert cm.location("<ipython-input-12-deadbeef>", 1)["execution_count"] == 12
    assert cm.location("/usr/lib/x.py", 1)["execution_count"] is None


def test_stop_unsubscribes_and_unregisters(chan):
    manager = chan._comm_manager
    assert "xjit" in manager.targets
    chan.stop()
    assert "xjit" not in manager.targets and chan.test_comm.closed
    n = len(chan.test_comm.sent)
    xjit.jit(lambda x: x - 1.0)(jnp.ones(2))
    assert len(chan.test_comm.sent) == n


# -- a real kernel ----------------------------------------------------------------
jupyter_client = pytest.importorskip("jupyter_client")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "kernel_ext"), str(ROOT / "core"), env.get("PYTHONPATH", "")])
    return env


@pytest.fixture(scope="module")
def kernel():
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.kernel_cmd = None
    km.start_kernel(env=_env(), extra_arguments=[])
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    yield kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def _execute(kc, code, cell_id=None):
    content = dict(code=code, silent=False, store_history=True, user_expressions={},
                   allow_stdin=False, stop_on_error=False)
    msg = kc.session.msg("execute_request", content, metadata={"cellId": cell_id} if cell_id else {})
    kc.shell_channel.send(msg)
    while True:  # replies to earlier requests (kernel_info, ...) may still be queued
        reply = kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return reply


def _comm_msgs(kc, comm_id, until=None, timeout=10):
    out, deadline = [], time.time() + timeout
    while time.time() < deadline:
        try:
            m = kc.get_iopub_msg(timeout=0.2)
        except queue.Empty:
            if until is None:
                break
            continue
        if m["msg_type"] in ("comm_msg", "comm_open") and m["content"].get("comm_id") == comm_id:
            out.append(m["content"]["data"])
            if until is not None and until(m["content"]["data"]):
                break
    return out


def _drain(kc):
    while True:
        try:
            kc.get_iopub_msg(timeout=0.3)
        except queue.Empty:
            return


def test_real_kernel_round_trip(kernel):
    kc = kernel
    _execute(kc, "%load_ext xjit_kernel_ext")
    _drain(kc)
    comm_id = uuid.uuid4().hex
    kc.shell_channel.send(kc.session.msg("comm_open", {
        "comm_id": comm_id, "target_name": "xjit",
        "data": {"protocol": "xjit/2", "type": "request_state"}}))
    got = _comm_msgs(kc, comm_id, until=lambda d: d["type"] == "state")
    assert [d["type"] for d in got][:1] == ["hello"] and got[-1]["type"] == "state"

    code = ("import xjit, xjit.numpy as jnp\n"
            "@xjit.jit\n"
            "def step(x):\n"
            "    return jnp.sin(x) * 2.0\n"
            "for _ in range(2000):\n"
            "    step(jnp.ones(3))\n"
            "step(jnp.ones(4))\n")
    _execute(kc, code, cell_id="cell-abc")
    got = _comm_msgs(kc, comm_id, timeout=3)
    for m in got:
        protocol.validate_outgoing(m)
    # after the cell, every function it traced is linted once (clean code: no findings)
    linted = [m for m in got if m["type"] == "findings"]
    assert [m["fun_name"] for m in linted] == ["step"] and linted[0]["findings"] == []
    msgs = [m for m in got if m["type"] != "findings"]
    assert msgs and all(m["type"] == "batch" for m in msgs)
    assert len(msgs) <= 20
    fn = [f for m in msgs for f in m["functions"] if f["name"] == "step"][-1]
    assert fn["calls"] == 2001 and fn["cache_misses"] == 2 and fn["cache_hits"] == 1999
    assert fn["location"]["cell_id"] == "cell-abc", fn
    assert fn["location"]["lineno"] == 2  # the decorator line (co_firstlineno)
    assert any("f32[4]" in r for r in fn["recompile_reasons"])
    assert sum(e["count"] for m in msgs for e in m["executes"] if e["fun_name"] == "step") == 2001
    kinds = [e["kind"] for m in msgs for e in m["events"]]
    assert kinds.count("trace") == 2 and kinds.count("compile") == 2 and kinds.count("cache_miss") == 2

    kc.shell_channel.send(kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {
        "protocol": "xjit/2", "type": "select_function", "fun_id": fn["fun_id"]}}))
    reply = _comm_msgs(kc, comm_id, until=lambda d: d["type"] == "function")[-1]
    assert [e["primitive"] for e in reply["equations"]] == ["sin", "mul"]
    assert "f32[4]" in reply["header"]
    assert [(s["cell_id"], s["lineno"]) for s in reply["sources"]] == [("cell-abc", 4)]
    assert [e["source"] for e in reply["equations"]] == [0, 0]


def test_real_kernel_run_debug_prompts_through_the_panel(kernel):
    kc = kernel
    _execute(kc, "%load_ext xjit_kernel_ext")
    _execute(kc, "def boom():\n    secret_local = 41\n    raise ValueError('x')\nboom()")
    _drain(kc)
    comm_id = uuid.uuid4().hex
    kc.shell_channel.send(kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": "xjit",
                                                       "data": {}}))
    _comm_msgs(kc, comm_id, until=lambda d: d["type"] == "state")
    msg = kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {
        "protocol": "xjit/2", "type": "run_debug"}})
    kc.shell_channel.send(msg)
    req = kc.get_stdin_msg(timeout=20)
    assert req["msg_type"] == "input_request"
    assert req["parent_header"]["msg_id"] == msg["header"]["msg_id"]
    kc.input("p secret_local + 1")
    req = kc.get_stdin_msg(timeout=20)
    kc.input("q")
    got, streams, deadline = [], [], time.time() + 20
    while time.time() < deadline and not (got and got[-1]["status"] != "started"):
        m = kc.get_iopub_msg(timeout=5)
        if m["msg_type"] == "stream" and m["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            streams.append(m["content"]["text"])
        if m["msg_type"] == "comm_msg" and m["content"]["data"]["type"] == "debug":
            got.append(m["content"]["data"])
    assert got[-1] == {"protocol": "xjit/2", "type": "debug", "status": "finished",
                       "message": "debugger exited"}
    # pdb's output went to iopub with the run_debug message as parent
    assert "42" in "".join(streams)
    # input forwarding ended with the request: a cell that did not allow
    # stdin cannot prompt
    reply = _execute(kc, "input()")
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "StdinNotImplementedError"


def test_real_kernel_code_in_an_xjit_cell_is_labelled_with_that_cell(kernel):
    """While a cell runs IPython already counts the next one; code the
    %%xjit magic runs must still carry its own cell's In [N] and lines."""
    kc = kernel
    _execute(kc, "%load_ext xjit")
    _drain(kc)
    comm_id = uuid.uuid4().hex
    kc.shell_channel.send(kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": "xjit",
                                                       "data": {}}))
    _comm_msgs(kc, comm_id, until=lambda d: d["type"] == "state")
    reply = _execute(kc, "%%xjit --quiet --no-lint\nimport xjit\n@xjit.jit\n"
                         "def in_magic(x):\n    return x + 1.0\nin_magic(1.0)", cell_id="cell-magic")
    count = reply["content"]["execution_count"]
    got = _comm_msgs(kc, comm_id, timeout=3)
    fn = [f for m in got if m["type"] == "batch" for f in m["functions"]
          if f["name"] == "in_magic"][-1]
    assert fn["location"]["execution_count"] == count
    assert fn["location"]["cell_id"] == "cell-magic"
    assert fn["location"]["lineno"] == 3  # the decorator's line in the cell (%%xjit is line 1)
