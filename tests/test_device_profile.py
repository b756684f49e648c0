"""xjit.inspect.device_profile and the source locations lowering attaches
to every op: device time per kernel, per equation and per line of the
user's source, joined through the HLO metadata XLA keeps."""
import collections
import gzip
import json
import os

import numpy as np
import pytest

import xjit as jax
import xjit.inspect as xi
import xjit.numpy as jnp
from xjit._src.inspect import device_profile as dp

HERE = os.path.abspath(__file__)


def _line(marker):
    """The line number of the line of this file ending with ``# marker``."""
    with open(HERE) as f:
        hits = [i for i, s in enumerate(f, 1) if s.rstrip().endswith(f"# {marker}")]
    assert len(hits) == 1, marker
    return hits[0]


def matmul_tanh(a, b):
    c = a @ b  # MATMUL
    return jnp.tanh(c) + 1.0  # TANH


def test_lowered_ops_carry_equation_and_source_locations():
    lowered = jax.jit(matmul_tanh).lower(jnp.ones((4, 4)), jnp.ones((4, 4)))
    text = lowered._entry.text
    mm, th = _line("MATMUL"), _line("TANH")
    assert f'loc("jit(matmul_tanh)/dot_general#0"("matmul_tanh"("{HERE}":{mm}:0)))' in text
    assert f'loc("jit(matmul_tanh)/tanh#1"("matmul_tanh"("{HERE}":{th}:0)))' in text
    # every op of the add (its constant and broadcast too) belongs to equation 2
    body = [ln for ln in text.splitlines() if '"stablehlo.' in ln]
    assert len(body) == 5
    assert [ln.rsplit(" loc(", 1)[1].split('"')[1] for ln in body] == [
        "jit(matmul_tanh)/dot_general#0", "jit(matmul_tanh)/tanh#1",
        "jit(matmul_tanh)/add#2", "jit(matmul_tanh)/add#2", "jit(matmul_tanh)/add#2"]
    # the pretty text (JAX prints it without locations) is unchanged
    assert "loc(" not in lowered.as_text() and "#loc" not in lowered.as_text()


def test_compiled_hlo_keeps_op_names_and_lines_through_fusion():
    compiled = jax.jit(matmul_tanh).lower(jnp.ones((4, 4)), jnp.ones((4, 4))).compile()
    hlo = compiled._entry.executable.exe.hlo_modules()[0].to_string()
    instrs, comps = dp._parse_hlo(hlo)
    located = {i.op_name: i.source for i in instrs.values() if i.op_name}
    assert located["jit(matmul_tanh)/dot_general#0"] == (HERE, _line("MATMUL"), "matmul_tanh")
    assert located["jit(matmul_tanh)/tanh#1"] == (HERE, _line("TANH"), "matmul_tanh")
    fusions = [i for i in instrs.values() if i.opcode == "fusion"]
    members = {f.name: {m.op_name for m in dp._members(f, instrs, comps) if m.op_name}
               for f in fusions}
    assert {"jit(matmul_tanh)/tanh#1", "jit(matmul_tanh)/add#2"} in members.values()


def test_locations_survive_odd_file_names():
    src = "def g(x):\n    return x * 2.0\n"
    code = compile(src, 'we"ird\\name.py', "exec")
    ns = {}
    exec(code, ns)
    f = jax.jit(ns["g"])
    np.testing.assert_allclose(f(jnp.ones(3)), 2.0)
    compiled = f.lower(jnp.ones(3)).compile()
    instrs, _ = dp._parse_hlo(compiled._entry.executable.exe.hlo_modules()[0].to_string())
    assert ('we"ird\\name.py', 2, "g") in {i.source for i in instrs.values()}


def test_mlir_locations_read_back():
    text = ('    %v0 = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32> '
            'loc("jit(f)/add#4"("<lambda>"("/x/we\\"ird.py":12:0)))\n'
            '    %v1 = "stablehlo.neg"(%v0) : (tensor<f32>) -> tensor<f32> loc("jit(f)/neg#5")\n')
    assert dp._mlir_locations(text) == {"jit(f)/add#4": ('/x/we"ird.py', 12, "<lambda>")}


def test_gradient_equations_keep_the_forward_line():
    def loss(w, x):
        h = jnp.tanh(x @ w)  # FWD1
        return jnp.sum(h ** 2)  # FWD2
    jaxpr = jax.make_jaxpr(jax.grad(loss))(jnp.ones((3, 2)), jnp.ones((4, 3)))
    lines = {e.source_info.lineno for e in jaxpr.eqns}
    assert lines == {_line("FWD1"), _line("FWD2")}


def test_matmul_tanh_profile_names_lines_and_adds_up():
    a = jnp.asarray(np.random.RandomState(0).rand(512, 512).astype(np.float32))
    prof = xi.device_profile(matmul_tanh, a, a, repeat=5)
    assert isinstance(prof, xi.DeviceProfile) and prof.repeat == 5
    assert prof.fun_name == "matmul_tanh" and prof.module == "jit_matmul_tanh"
    lines = {(r.filename, r.lineno): r for r in prof.lines}
    assert set(lines) == {(HERE, _line("MATMUL")), (HERE, _line("TANH"))}
    assert prof.lines[0].lineno == _line("MATMUL")  # the matmul costs the most
    assert prof.lines[0].source == "c = a @ b  # MATMUL"
    for rows in (prof.lines, prof.equations, prof.ops):
        assert sum(r.time_s for r in rows) == pytest.approx(prof.device_s, rel=1e-9)
        assert sum(r.share for r in rows) == pytest.approx(1.0)
    # the kernels run one after another: their sum is the measured device time
    assert abs(prof.device_s - prof.span_s) <= 0.1 * prof.span_s
    assert prof.span_s <= prof.wall_s
    by_label = {e.label: e for e in prof.equations}
    assert set(by_label) == {"dot_general#0", "tanh#1", "add#2"}
    # tanh and add are fused into one kernel, which reports both
    fused = [op for op in prof.ops if set(op.equations) == {"tanh#1", "add#2"}]
    assert len(fused) == 1 and fused[0].opcode == "fusion" and fused[0].count == 1
    assert by_label["tanh#1"].kernels == (fused[0].name,)
    assert by_label["tanh#1"].time_s > by_label["add#2"].time_s  # tanh costs more per element
    text = repr(prof)
    assert text.startswith("Device profile of matmul_tanh on cpu: ")
    assert "By source line:" in text and "c = a @ b  # MATMUL" in text
    assert "By kernel:" in text and "By equation:" in text
    html = prof._repr_html_()
    assert html.count("<table>") == 3 and "dot_general#0" in html
    # line_profiler-style: the function's lines, timed where they cost device time
    (filename, rows), = prof._source_blocks(1)
    assert filename == HERE
    assert [(n, src) for _, _, n, src in rows] == [
        (_line("MATMUL") - 1, "def matmul_tanh(a, b):"),
        (_line("MATMUL"), "    c = a @ b  # MATMUL"),
        (_line("TANH"), "    return jnp.tanh(c) + 1.0  # TANH")]  # then a blank line: the end
    assert [bool(t) for t, *_ in rows] == [False, True, True]
    text = prof.annotated_source(1).splitlines()
    assert text[0] == HERE and text[1].split() == ["time", "share", "line", "source"]
    assert text[3].endswith(f"{_line('MATMUL')}        c = a @ b  # MATMUL")
    assert "return jnp.tanh(c) + 1.0  # TANH" in html


def mlp_loss(params, x, y):
    h = x @ params["w1"]  # MLP1
    h = jnp.tanh(h)  # ACT
    out = h @ params["w2"]  # MLP2
    return jnp.mean((out - y) ** 2)  # LOSS


@jax.jit
def train_step(params, x, y):
    grads = jax.grad(mlp_loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)  # SGD


def test_mlp_step_time_goes_to_the_matmul_lines():
    rng = np.random.RandomState(0)
    params = {"w1": jnp.asarray(rng.randn(1024, 256).astype(np.float32) * 0.05),
              "w2": jnp.asarray(rng.randn(256, 1024).astype(np.float32) * 0.05)}
    x = jnp.asarray(rng.randn(768, 1024).astype(np.float32))
    y = jnp.asarray(rng.randn(768, 1024).astype(np.float32))
    prof = xi.device_profile(train_step, params, x, y, repeat=3)
    by_line = {r.lineno: r for r in prof.lines}
    matmuls = by_line[_line("MLP1")].share + by_line[_line("MLP2")].share
    assert matmuls >= 0.8, prof
    assert set(by_line) <= {_line(m) for m in ("MLP1", "ACT", "MLP2", "LOSS", "SGD")}
    assert sum(r.time_s for r in prof.lines) == pytest.approx(prof.device_s, rel=1e-9)
    # the backward matmuls (transposes of dot_general) sit on the forward lines
    mm_lines = {e.lineno for e in prof.equations if e.primitive in ("dot_general", "transpose")}
    assert mm_lines == {_line("MLP1"), _line("MLP2")}


def test_loop_bodies_are_not_counted_twice():
    def f(x):
        return jax.lax.fori_loop(0, 4, lambda i, c: jnp.sin(c @ c) * 0.5, x)  # LOOP
    prof = xi.device_profile(f, jnp.ones((96, 96)) * 0.01, repeat=2)
    assert sum(r.time_s for r in prof.lines) == pytest.approx(prof.device_s, rel=1e-9)
    assert prof.device_s <= prof.span_s * 1.1  # nested thunks: self times only
    assert _line("LOOP") in {r.lineno for r in prof.lines}


def test_donated_arguments_are_fresh_for_every_run():
    f = jax.jit(lambda x: x * 2.0, donate_argnums=0)
    x = jnp.ones(8)
    prof = xi.device_profile(f, x, repeat=3)
    assert prof.repeat == 3 and prof.device_s > 0
    np.testing.assert_allclose(np.asarray(x), 1.0)  # the caller's array was not consumed


def test_export_writes_an_xplane_for_xprof(tmp_path):
    prof = xi.device_profile(matmul_tanh, jnp.ones((8, 8)), jnp.ones((8, 8)), repeat=1)
    run = prof.export(tmp_path, create_perfetto_trace=True)
    assert run.startswith(str(tmp_path / "plugins" / "profile"))
    assert len([p for p in os.listdir(run) if p.endswith(".xplane.pb")]) == 1
    with gzip.open(os.path.join(run, "perfetto_trace.json.gz")) as fp:
        names = {e.get("name") for e in json.load(fp)["traceEvents"]}
    assert {op.name for op in prof.ops} <= names  # the kernels, named as in the profile


def test_parse_hlo_reads_metadata_forms():
    text = '''HloModule m

FileNames
1 "/a/b.py"

FunctionNames
1 "fn"

FileLocations
1 {file_name_id=1 function_name_id=1 line=7 end_line=7 column=0 end_column=0}

StackFrames
1 {file_location_id=1 parent_frame_id=1}


%inner (p: f32[8,4]) -> f32[8,4] {
  %p = f32[8,4]{1,0} parameter(0)
  ROOT %e = f32[8,4]{1,0} exponential(%p), metadata={op_name="jit(f)/blk/exp#3" stack_frame_id=1}
}

%outer (p.1: f32[8,16], q: f32[16,4]) -> f32[8,4] {
  %p.1 = f32[8,16]{1,0} parameter(0)
  %q = f32[16,4]{1,0} parameter(1)
  %d = f32[8,4]{1,0} dot(%p.1, %q), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_type="x{y}" op_name="jit(f)/dot_general#2" source_file="/a/\\"c.py" source_line=3}
  ROOT %n = f32[8,4]{1,0} fusion(%d), kind=kLoop, calls=%inner
}

ENTRY %main (x: f32[8,16], y: f32[16,4]) -> (f32[8,4]) {
  %x = f32[8,16]{1,0} parameter(0)
  %y = f32[16,4]{1,0} parameter(1)
  %k = f32[8,4]{1,0} fusion(%x, %y), kind=kOutput, calls=%outer, metadata={op_name="jit(f)/dot_general#2"}
  ROOT %t = (f32[8,4]{1,0}) tuple(%k)
}
'''
    instrs, comps = dp._parse_hlo(text)
    assert comps["main"] == ["x", "y", "k", "t"]
    members = dp._members(instrs["k"], instrs, comps)
    assert [m.name for m in members] == ["p.1", "q", "d", "p", "e"]
    assert instrs["e"].source == ("/a/b.py", 7, "fn")
    assert instrs["d"].source == ('/a/"c.py', 3, None)
    assert dp._eqn_key(instrs["e"].op_name) == ("jit(f)/blk", "exp", 3)
    assert dp._work(instrs["d"], instrs) == 8 * 4 * 16
    assert dp._work(instrs["e"], instrs) == 8 * 4 * 8  # exp: a transcendental
    assert dp._work(instrs["p"], instrs) == 0


def test_bad_repeat():
    with pytest.raises(ValueError, match="repeat must be a positive integer, got 0"):
        xi.device_profile(matmul_tanh, jnp.ones((2, 2)), jnp.ones((2, 2)), repeat=0)


def _make_big():
    return jnp.zeros((1000, 1000), jnp.float32)  # BIG


def test_memory_profile_lists_a_large_array_under_its_line():
    big = _make_big()
    small = jnp.arange(10.0)  # SMALL
    mem = xi.memory_profile()
    assert isinstance(mem, xi.MemoryProfile) and mem.platform == "cpu"
    by_line = {(r.filename, r.lineno): r for r in mem.lines}
    row = by_line[(HERE, _line("BIG"))]
    assert row.bytes == 4_000_000 and row.count == 1 and row.function == "_make_big"
    assert row.source == "return jnp.zeros((1000, 1000), jnp.float32)  # BIG"
    assert by_line[(HERE, _line("SMALL"))].bytes >= 40
    assert mem.total_bytes == sum(r.bytes for r in mem.lines) >= 4_000_000
    assert sum(r.share for r in mem.lines) == pytest.approx(1.0)
    assert "return jnp.zeros((1000, 1000), jnp.float32)  # BIG" in repr(mem)
    assert "<table>" in mem._repr_html_()
    del big
    after = xi.memory_profile()
    assert (HERE, _line("BIG")) not in {(r.filename, r.lineno) for r in after.lines}
    del small


def test_span_without_run_ids_is_the_busy_time():
    runs = {None: [(0, 10), (5, 20), (30, 40), (100, 110)]}
    assert dp._span_ns(runs, 2) == (20 + 10 + 10) / 2
    assert dp._span_ns({1: [(0, 10), (12, 20)], 2: [(50, 54)]}, 2) == (20 + 4) / 2
    assert dp._span_ns({}, 3) == 0.0


def test_kernels_without_equations_are_reported_as_unattributed():
    prof = xi.device_profile(lambda x: x, jnp.ones(3), repeat=2)  # XLA only copies
    assert [e.label for e in prof.equations] == ["(unattributed)"]
    assert [r.where for r in prof.lines] == ["(no source line)"]
    assert prof.ops[0].equations == ("(unattributed)",)


@jax.jit
def _inner(x):
    with jax.named_scope("inner"):
        return jnp.sin(x)  # INNER


def scoped(w, x):
    with jax.named_scope("encoder"):
        h = jnp.tanh(x @ w)  # ENC
        with jax.named_scope("deep"):
            h = _inner(h) * 2.0  # DEEP
    return jnp.sum(h ** 2)  # HEAD


def test_named_scopes_are_in_op_names_forward_and_backward():
    """``named_scope`` paths sit between ``jit(f)/`` and the equation, as in
    JAX's op names (which also wrap them in ``jvp(...)``/``transpose(...)``
    under ``grad``; here a gradient equation keeps its forward scope as it
    keeps its forward line). Scopes count from each jit: one around the
    call is not part of the names, a nested jit adds ``jit(g)``."""
    w, x = jnp.ones((4, 4)), jnp.ones((2, 4))
    with jax.named_scope("around_the_call"):
        text = jax.jit(jax.grad(scoped)).lower(w, x)._entry.text
    names = [ln.rsplit(' loc("', 1)[1].split('"')[0] for ln in text.splitlines()
             if ' loc("' in ln]
    assert not any("around_the_call" in n for n in names)
    enc, deep, head = _line("ENC"), _line("DEEP"), _line("HEAD")
    assert (f'loc("jit(scoped)/encoder/dot_general#0"("scoped"("{HERE}":{enc}:0)))' in text)
    assert (f'loc("jit(scoped)/encoder/deep/jit(_inner)/inner/sin#4"'
            f'("_inner"("{HERE}":{_line("INNER")}:0)))') in text
    assert f'loc("jit(scoped)/encoder/deep/mul#6"("scoped"("{HERE}":{deep}:0)))' in text
    by_scope = collections.defaultdict(set)
    for n in names:
        by_scope[n.rsplit("/", 1)[0]].add(n.rsplit("/", 1)[1].split("#")[0])
    # the backward matmuls (a dot_general and a transpose each) keep the forward scope
    assert {"dot_general", "transpose"} <= by_scope["jit(scoped)/encoder"]
    assert set(by_scope) == {"jit(scoped)", "jit(scoped)/encoder", "jit(scoped)/encoder/deep",
                             "jit(scoped)/encoder/deep/jit(_inner)/inner"}
    # XLA keeps the names in the compiled module's metadata
    hlo = jax.jit(scoped).lower(w, x).compile()._entry.executable.exe.hlo_modules()[0]
    op_names = {i.op_name for i in dp._parse_hlo(hlo.to_string())[0].values() if i.op_name}
    assert "jit(scoped)/encoder/dot_general#0" in op_names
    # inner jaxprs are scoped by their equation, with JAX's names (remat2 is "checkpoint")
    text = jax.jit(lambda v: jax.checkpoint(scoped)(w, v)).lower(x)._entry.text
    assert 'loc("jit(<lambda>)/checkpoint/encoder/tanh#2"' in text


def test_named_scope_stays_in_its_thread():
    import threading
    entered, done = threading.Event(), threading.Event()

    def hold():
        with jax.named_scope("other_thread"):
            entered.set()
            done.wait(10)
    t = threading.Thread(target=hold)
    t.start()
    entered.wait(10)
    try:
        jaxpr = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0)
    finally:
        done.set()
        t.join()
    assert all(e.source_info.name_stack is None for e in jaxpr.eqns)


def test_profile_totals_per_named_scope():
    rng = np.random.RandomState(0)
    w = jnp.asarray(rng.rand(384, 384).astype(np.float32))
    x = jnp.asarray(rng.rand(256, 384).astype(np.float32))
    prof = xi.device_profile(jax.grad(scoped), w, x, repeat=2)
    assert prof.scopes[0].scope == "encoder"
    scopes = {r.scope: r for r in prof.scopes}
    assert set(scopes) == {"encoder", "encoder/deep", "encoder/deep/jit(_inner)",
                           "encoder/deep/jit(_inner)/inner"}
    # a scope's total includes its sub-scopes'; outside every scope is only the loss
    enc = sum(e.time_s for e in prof.equations if e.scope.startswith("jit(scoped)/encoder"))
    assert scopes["encoder"].time_s == pytest.approx(enc, rel=1e-9)
    assert scopes["encoder"].time_s > scopes["encoder/deep"].time_s > 0
    assert scopes["encoder"].share >= 0.8, prof  # the matmuls, forward and backward
    assert "sin#4" in scopes["encoder/deep/jit(_inner)/inner"].equations
    assert "By named scope:" in repr(prof) and "encoder/deep" in repr(prof)
    assert prof._repr_html_().count("<table>") == 4


def test_locations_change_names_and_metadata_only_not_the_program(monkeypatch):
    """Profiling off costs nothing at run time: the compiled program with
    locations on every op is instruction for instruction the one without
    (XLA only names instructions after them and keeps them as metadata).
    bench/profile_overhead.py measures the lowering and compile side."""
    from xjit._src.interpreters import mlir

    def program(fun):
        w, x = jnp.ones((64, 64)), jnp.ones((32, 64))
        hlo = jax.jit(fun).lower(w, x).compile()._entry.executable.exe.hlo_modules()[0]
        ms = [dp._INSTRUCTION.match(ln) for ln in hlo.to_string().splitlines()]
        return [(m[2], m[3]) for m in ms if m], hlo.to_string()

    located, text = program(jax.grad(scoped))
    monkeypatch.setattr(mlir, "eqn_loc", lambda module_ctx, eqn: "")
    bare, bare_text = program(jax.grad(lambda w, x: scoped(w, x)))
    assert located == bare and len(located) > 10
    assert 'op_name="jit(scoped)/encoder/' in text and "op_name=" not in bare_text


@pytest.mark.compare
def test_scope_paths_match_jax_op_names():
    """Forward ops carry JAX's op names, each with our ``#n`` equation number."""
    import re

    import jax as real_jax

    def make(api, np_):
        def f(x):
            with api.named_scope("outer"):
                y = np_.sin(x) * 2.0
                with api.named_scope("deep"):
                    y = np_.cos(y)
            return y + 1.0
        return f

    ours = jax.jit(make(jax, jnp)).lower(jnp.ones(3))._entry.text
    theirs = real_jax.jit(make(real_jax, real_jax.numpy)).lower(
        real_jax.numpy.ones(3)).as_text(debug_info=True)
    names = lambda text, pat: set(re.findall(pat, text))
    assert names(ours, r'loc\("(jit\(f\)/[^"#]*)#\d+"') == names(
        theirs, r'loc\("(jit\(f\)/[^"]*)"') == {"jit(f)/outer/sin", "jit(f)/outer/mul",
                                                "jit(f)/outer/deep/cos", "jit(f)/add"}
