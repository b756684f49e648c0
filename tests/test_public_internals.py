"""JAX's public-internal modules (``xjit.core``, ``xjit.extend``,
``xjit.interpreters.*``, ``api_util``, ``flatten_util``, ``stages``,
``test_util``, ``ad_checkpoint``, ``custom_derivatives``): the names are
there and behave as JAX 0.10.2's do. Expected values and printed text were
recorded from JAX 0.10.2 running the same code."""
from __future__ import annotations

import contextlib
import importlib
import io

import numpy as np
import pytest

import xjit as jax
import xjit.numpy as jnp
from xjit import lax

# The names each module has (JAX 0.10.2's; what is left out, and why, is in
# scripts/api_surface.py's report).
NAMES = {
    "xjit.core": "AbstractValue Atom ParamDict ShapedArray Trace Tracer Value "
                 "ensure_compile_time_eval eval_context eval_jaxpr max_dim min_dim",
    "xjit.extend": "backend core linear_util source_info_util",
    "xjit.extend.core": "ClosedJaxpr DropVar Effect Effects InconclusiveDimensionOperation Jaxpr "
                        "JaxprEqn JaxprTypeError Literal Primitive Var array_types check_jaxpr "
                        "concrete_or_error find_top_trace gensym get_opaque_trace_state "
                        "jaxpr_as_fun jaxprs_in_params mapped_aval new_jaxpr_eqn no_effects "
                        "nonempty_axis_env_DO_NOT_USE primal_dtype_to_tangent_dtype primitives "
                        "set_current_trace subjaxprs take_current_trace unmapped_aval "
                        "unsafe_am_i_under_a_jit_DO_NOT_USE unsafe_am_i_under_a_vmap_DO_NOT_USE "
                        "unsafe_get_axis_names_DO_NOT_USE valid_jaxtype",
    "xjit.extend.linear_util": "Callable StoreException WrappedFun cache merge_linear_aux "
                               "transformation transformation2 transformation_with_aux "
                               "transformation_with_aux2 wrap_init",
    "xjit.extend.source_info_util": "NameStack SourceInfo current current_name_stack "
                                    "extend_name_stack new_name_stack new_source_info "
                                    "register_exclusion reset_name_stack set_name_stack summarize "
                                    "transform_name_stack user_context",
    "xjit.extend.backend": "backends get_backend get_default_device",
    "xjit.interpreters.ad": "JVPTrace JVPTracer UndefinedPrimal Zero add_jaxvals add_jaxvals_p "
                            "add_tangents annotations defbilinear defjvp defjvp2 deflinear "
                            "deflinear2 "
                            "get_primitive_transpose instantiate_zeros is_undefined_primal "
                            "primitive_jvps primitive_transposes zeros_like_aval",
    "xjit.interpreters.batching": "bdim_at_front broadcast defbroadcasting defreducer "
                                  "defvectorized fancy_primitive_batchers primitive_batchers "
                                  "axis_primitive_batchers",
    "xjit.interpreters.partial_eval": "DynamicJaxprTracer PartialVal Val dce_jaxpr "
                                      "dce_jaxpr_consts trace_to_jaxpr_dynamic "
                                      "trace_to_jaxpr_nounits",
    "xjit.interpreters.mlir": "LoweringRule LoweringRuleContext ModuleContext Value "
                              "aval_to_ir_type aval_to_ir_types dense_int_array "
                              "dense_int_elements dtype_to_ir_type flatten_ir_types "
                              "flatten_ir_values i32_attr i64_attr ir ir_constant ir_constants "
                              "lower_fun make_ir_context module_to_bytecode module_to_string "
                              "register_lowering token_type",
    "xjit.api_util": "argnums_partial debug_info donation_vector flatten_axes flatten_fun "
                     "flatten_fun_nokwargs rebase_donate_argnums safe_map shaped_abstractify",
    "xjit.flatten_util": "ravel_pytree",
    "xjit.stages": "ArgInfo Compiled CompilerOptions Lowered Traced Wrapped",
    "xjit.test_util": "check_grads check_jvp check_vjp",
    "xjit._src.api": "disable_jit eval_shape grad hessian jacfwd jacobian jacrev jit jvp "
                     "linear_transpose linearize make_jaxpr value_and_grad vjp vmap",
    "xjit.ad_checkpoint": "Offloadable Recompute Saveable checkpoint_name checkpoint_policies "
                          "print_saved_residuals",
    "xjit.custom_derivatives": "CustomVJPPrimal SymbolicZero closure_convert custom_gradient "
                               "custom_jvp custom_jvp_call_p custom_vjp custom_vjp_call_p "
                               "custom_vjp_primal_tree_values linear_call zero_from_primal",
}


@pytest.mark.parametrize("module", sorted(NAMES))
def test_names_importable(module):
    mod = importlib.import_module(module)
    missing = [n for n in NAMES[module].split() if not hasattr(mod, n)]
    assert not missing


@pytest.mark.compare
@pytest.mark.parametrize("module", sorted(NAMES))
def test_names_are_jaxs(module):
    """Every name listed is one JAX 0.10.2's module has."""
    jmod = importlib.import_module("jax" + module[len("xjit"):])
    assert [n for n in NAMES[module].split() if not hasattr(jmod, n)] == []


def test_top_level():
    assert jax.__version_info__ == (0, 10, 2)
    assert jax.core.ShapedArray is jax._src.core.ShapedArray
    assert jax.interpreters.ad.primitive_jvps is jax._src.interpreters.ad.jvp_rules


def test_extend_core_primitives_are_the_engines():
    from xjit.extend.core import primitives
    assert primitives.sin_p is lax.sin_p and primitives.add_jaxvals_p.name == "add_any"
    assert primitives.jit_p.name == "jit" and primitives.remat_p.name == "remat2"
    assert primitives.dot_general_p is lax.dot_general_p
    np.testing.assert_allclose(primitives.sin_p.bind(jnp.float32(1.0)), np.sin(np.float32(1.0)))


# -- xjit.core / xjit.extend.core


def test_core_helpers():
    from xjit import core
    from xjit.extend import core as ecore
    assert (core.max_dim(2, 3), core.min_dim(np.int64(2), 3)) == (3, 2)
    with core.eval_context():
        assert not isinstance(jnp.sin(1.0), core.Tracer)
    assert isinstance(core.ShapedArray((2,), np.float32), core.AbstractValue)
    a = core.ShapedArray((2, 3), np.float32)
    assert ecore.mapped_aval(2, 0, a) == core.ShapedArray((3,), np.float32)
    assert ecore.unmapped_aval(4, 1, a) == core.ShapedArray((2, 4, 3), np.float32)
    assert ecore.primal_dtype_to_tangent_dtype(np.dtype(np.int32)) == jax.dtypes.float0
    assert ecore.primal_dtype_to_tangent_dtype(np.dtype(np.float32)) == np.float32
    assert ecore.valid_jaxtype(1.0) and not ecore.valid_jaxtype("a")
    assert str(a.update(weak_type=True)) == "~float32[2,3]"
    v = ecore.gensym()(a)
    eqn = ecore.new_jaxpr_eqn([v], [ecore.Var(a)], lax.sin_p, {"accuracy": None},
                              ecore.no_effects)
    jaxpr = ecore.Jaxpr([], [v], eqn.outvars, [eqn])
    ecore.check_jaxpr(jaxpr)
    np.testing.assert_allclose(ecore.jaxpr_as_fun(ecore.ClosedJaxpr(jaxpr, []))(np.ones((2, 3)))[0],
                               np.sin(np.ones((2, 3))), rtol=1e-6)
    with pytest.raises(ecore.JaxprTypeError, match="does not match"):
        wrong = ecore.new_jaxpr_eqn([v], [ecore.Var(core.ShapedArray((3,), np.float32))],
                                    lax.sin_p, {"accuracy": None}, ecore.no_effects)
        ecore.check_jaxpr(ecore.Jaxpr([], [v], wrong.outvars, [wrong]))
    cj = jax.make_jaxpr(lambda x: jax.jit(jnp.sin)(x))(1.0)
    assert [j.eqns[0].primitive.name for j in ecore.subjaxprs(cj.jaxpr)] == ["sin"]


def test_trace_queries():
    from xjit.extend import core as ecore
    seen = {}

    def f(x):
        seen["jit"] = ecore.unsafe_am_i_under_a_jit_DO_NOT_USE()
        seen["vmap"] = ecore.unsafe_am_i_under_a_vmap_DO_NOT_USE()
        seen["names"] = ecore.unsafe_get_axis_names_DO_NOT_USE()
        seen["env"] = ecore.nonempty_axis_env_DO_NOT_USE()
        return x
    f(1.0)
    assert seen == {"jit": False, "vmap": False, "names": [], "env": False}
    jax.jit(f)(1.0)
    assert seen["jit"] and not seen["vmap"]
    jax.vmap(f, axis_name="i")(jnp.ones(2))
    assert seen == {"jit": False, "vmap": True, "names": ["i"], "env": True}
    jax.jit(jax.vmap(f))(jnp.ones(2))
    assert seen["jit"] and seen["vmap"] and seen["names"] == []
    states = []
    jax.jit(lambda x: states.append(ecore.get_opaque_trace_state()) or x)(1.0)
    assert states[0] != ecore.get_opaque_trace_state()
    def probe(x):
        with ecore.take_current_trace() as t:
            seen["taken"] = (type(t).__name__, ecore.find_top_trace(()) is eval_trace)
        seen["top"] = type(ecore.find_top_trace(())).__name__
        return x
    eval_trace = jax._src.core.eval_trace
    jax.jit(probe)(1.0)
    assert seen["taken"] == ("JaxprTrace", True) and seen["top"] == "JaxprTrace"
    assert ecore.find_top_trace(()) is eval_trace


# -- linear_util and api_util


def test_linear_util_transformations():
    from xjit.extend import linear_util as lu

    @lu.transformation2
    def scale(f, k, *args):
        return f(*args) * k

    @lu.transformation_with_aux2
    def count(f, store, *args):
        out = f(*args)
        store.store(len(args))
        return out

    @lu.transformation
    def add_one(*args):
        out = yield args, {}
        yield out + 1

    @lu.transformation_with_aux
    def with_aux(*args):
        out = yield args, {}
        yield out, "aux"

    fun = lu.wrap_init(lambda x, y: x + y)
    g, n = count(scale(add_one(fun), 10))
    assert g.call_wrapped(1, 2) == 40 and n() == 2  # ((1 + 2) + 1) * 10
    h, aux = with_aux(fun)
    assert h.call_wrapped(1, 1) == 2 and aux() == "aux"
    g2, _ = count(scale(add_one(lu.wrap_init(lambda x, y: x + y)), 10))
    with pytest.raises(lu.StoreException, match="Store empty"):
        _()
    assert lu.merge_linear_aux(n, _) == (True, 2)
    assert lu.wrap_init(lambda x, *, k: x * k, {"k": 3}).call_wrapped(2) == 6

    calls = []

    @lu.cache
    def traced(fun, k):
        calls.append(k)
        return fun.call_wrapped(k)
    base = lambda x: x * 2  # noqa: E731
    assert traced(lu.wrap_init(base), 3) == 6 and traced(lu.wrap_init(base), 3) == 6
    assert calls == [3]


def test_api_util():
    from xjit import api_util, tree_util
    from xjit.extend import linear_util as lu
    args, kwargs = (1.0, {"a": 2.0}), {"b": 3.0}
    leaves, in_tree = tree_util.tree_flatten((args, kwargs))
    f, out_tree = api_util.flatten_fun(lu.wrap_init(lambda x, d, b: (x + d["a"], [b])), in_tree)
    assert f.call_wrapped(*leaves) == [3.0, 3.0]
    assert out_tree() == tree_util.tree_structure((0, [0]))
    g, out_tree = api_util.flatten_fun_nokwargs(lu.wrap_init(lambda x, y: {"s": x * y}),
                                                tree_util.tree_structure((0, 0)))
    assert g.call_wrapped(2.0, 4.0) == [8.0] and out_tree() == tree_util.tree_structure({"s": 0})
    h, dyn = api_util.argnums_partial(lu.wrap_init(lambda a, s, b: a * s + b), (0, 2),
                                      (2.0, 10, 1.0))
    assert dyn == (2.0, 1.0) and h.call_wrapped(*dyn) == 21.0
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        api_util.argnums_partial(lu.wrap_init(lambda a, s: a), (0,), (1.0, [1]))
    tree = tree_util.tree_structure(((0, (0, 0)), {"k": 0, "j": (0, 0)}))
    assert api_util.donation_vector((1,), ("j",), tree) == (False, True, True, True, True, False)
    assert api_util.rebase_donate_argnums((0, 3), (1, 2)) == (0, 1)
    assert api_util.flatten_axes("vmap in_axes", tree_util.tree_structure((0, [0, 0])),
                                 (1, None)) == [1, None, None]
    assert api_util.shaped_abstractify(np.ones((2,), np.int32)) == jax.core.ShapedArray(
        (2,), np.int32)
    assert api_util.safe_map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]
    with pytest.raises(ValueError, match="length mismatch"):
        api_util.safe_map(lambda a, b: a, [1], [1, 2])
    info = api_util.debug_info("jit", lambda x, y: x, (1.0, {"a": 2.0}), {})
    assert info.arg_names == ["x", "y['a']"]


# -- flatten_util.ravel_pytree (JAX's values)


RAVEL_CASES = [
    ({"a": np.ones((2, 2), np.float32), "b": (np.arange(3, dtype=np.int32), 2.0)},
     [1., 1., 1., 1., 0., 1., 2., 2.], np.float32,
     {"a": (np.float32, (2, 2)), "b": ((np.int32, (3,)), (np.float32, ()))}),
    ([np.arange(3, dtype=np.int32), np.ones(2, np.float16)], [0., 1., 2., 1., 1.], np.float16,
     [(np.int32, (3,)), (np.float16, (2,))]),
    ([np.ones(2, np.float32), 1], [1., 1., 1.], np.float32, [(np.float32, (2,)), (np.int32, ())]),
    ((np.ones(2, jnp.bfloat16), np.ones(1, np.int8)), [1, 1, 1], jnp.bfloat16,
     ((jnp.bfloat16, (2,)), (np.int8, (1,)))),
    ([1.0, 2], [1., 2.], np.float32, [(np.float32, ()), (np.int32, ())]),
    ([True, np.ones(2, np.int32)], [1, 1, 1], np.int32, [(np.bool_, ()), (np.int32, (2,))]),
    ([np.ones(2, np.complex64), np.ones(1, np.float32)], [1, 1, 1], np.complex64,
     [(np.complex64, (2,)), (np.float32, (1,))]),
    ([], [], np.float32, []),
    ({"x": np.zeros((0, 3), np.float32)}, [], np.float32, {"x": (np.float32, (0, 3))}),
]


@pytest.mark.parametrize("tree,flat,dtype,back", RAVEL_CASES)
def test_ravel_pytree(tree, flat, dtype, back):
    from xjit.flatten_util import ravel_pytree
    out, unravel = ravel_pytree(tree)
    assert out.dtype == dtype and out.shape == (len(flat),)
    np.testing.assert_array_equal(np.asarray(out, np.complex128), flat)
    restored = unravel(out)
    got = jax.tree_util.tree_map(lambda x: (np.dtype(x.dtype), np.shape(x)), restored)
    want = jax.tree_util.tree_map(lambda d: (np.dtype(d[0]), d[1]), back,
                                  is_leaf=lambda d: isinstance(d, tuple) and len(d) == 2
                                  and not isinstance(d[0], tuple))
    assert got == want
    for a, b in zip(jax.tree_util.tree_leaves(restored), jax.tree_util.tree_leaves(tree)):
        np.testing.assert_array_equal(a, b)


def test_ravel_pytree_unravel_checks_and_transforms():
    from xjit.flatten_util import ravel_pytree
    flat, unravel = ravel_pytree([jnp.ones(2, jnp.int32), jnp.ones(1)])
    with pytest.raises(TypeError, match="unravel function given array of dtype int32, but "
                                        "expected dtype float32"):
        unravel(flat.astype(jnp.int32))
    again = ravel_pytree([jnp.ones(2, jnp.int32), jnp.ones(1)])[1]
    assert unravel == again and hash(unravel) == hash(again)
    np.testing.assert_array_equal(jax.jit(lambda t: ravel_pytree(t)[0])(
        {"a": jnp.ones(2), "b": 3.0}), [1., 1., 3.])
    g = jax.grad(lambda t: jnp.sum(ravel_pytree(t)[0] ** 2))({"a": jnp.ones(2),
                                                               "b": jnp.float32(3.0)})
    np.testing.assert_array_equal(g["a"], [2., 2.])
    assert float(g["b"]) == 6.0
    v = jax.vmap(lambda x: ravel_pytree({"u": x, "w": 2 * x})[0])(jnp.arange(6.).reshape(3, 2))
    np.testing.assert_array_equal(v, [[0, 1, 0, 2], [2, 3, 4, 6], [4, 5, 8, 10]])


# -- test_util


def test_check_grads_accepts_right_and_rejects_wrong_derivatives():
    from xjit.test_util import check_grads, check_jvp, check_vjp
    check_grads(lambda x, y: jnp.sin(x) * y ** 2, (np.float32(0.3), np.float32(1.2)), order=2)
    check_grads(lambda x: jnp.tanh(x).sum(), (np.linspace(-1, 1, 5).astype(np.float32),),
                order=1, modes=["rev"])
    check_grads(jnp.exp, (np.float64(0.5),), order=1, modes=("fwd",), atol=1e-2, rtol=1e-2)

    @jax.custom_jvp
    def bad_sin(x):
        return jnp.sin(x)
    bad_sin.defjvp(lambda p, t: (jnp.sin(p[0]), 2 * jnp.cos(p[0]) * t[0]))
    with pytest.raises(AssertionError, match="JVP tangent"):
        check_grads(bad_sin, (np.float32(0.3),), order=1, modes=["fwd"])
    with pytest.raises(AssertionError, match="VJP cotangent projection"):
        check_grads(bad_sin, (np.float32(0.3),), order=1, modes=["rev"])
    check_jvp(jnp.sin, lambda p, t: jax.jvp(jnp.sin, p, t), (np.float32(0.4),))
    check_vjp(jnp.sin, lambda x: jax.vjp(jnp.sin, x), (np.float32(0.4),))


# -- ad_checkpoint

def g(w, x):
    y = jnp.sin(w @ x)
    y = checkpoint_name(y, "hidden")
    z = jnp.cos(w @ y)
    return jnp.sum(z)


def f(x):
    return jnp.sin(jnp.sin(x))


from xjit.ad_checkpoint import checkpoint_name, print_saved_residuals  # noqa: E402

cp = jax.checkpoint_policies
W, X = jnp.ones((3, 3)), jnp.ones(3)


def _residuals(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_saved_residuals(fn, *args)
    return out.getvalue()


def _where(fn, offset, col):
    return f"{__file__}:{fn.__code__.co_firstlineno + offset}:{col} ({fn.__name__})"


def test_print_saved_residuals_matches_jax():
    assert _residuals(f, 1.0) == (f"f32[] output of cos from {_where(f, 1, 19)}\n"
                                  f"f32[] output of cos from {_where(f, 1, 11)}\n")
    assert _residuals(jax.checkpoint(f), 1.0) == "f32[] from the argument x\n"
    args = "f32[3,3] from the argument w\nf32[3] from the argument x\n"
    everything = (args + f"f32[3] output of cos from {_where(g, 1, 8)}\n"
                  f"f32[3] named 'hidden' from {_where(g, 2, 8)}\n"
                  f"f32[3] output of sin from {_where(g, 3, 8)}\n")
    dots = (args + f"f32[3] output of dot_general from {_where(g, 1, 16)}\n"
            f"f32[3] output of dot_general from {_where(g, 3, 16)}\n")
    expect = {
        None: everything,
        cp.nothing_saveable: args,
        cp.everything_saveable: everything,
        cp.dots_saveable: dots,
        cp.dots_with_no_batch_dims_saveable: dots,
        cp.save_only_these_names("hidden"):
            args + f"f32[3] named 'hidden' from {_where(g, 2, 8)}\n",
        cp.save_any_names_but_these("hidden"): args,
        cp.save_anything_except_these_names("hidden"): everything,
        cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("hidden")):
            args + f"f32[3] output of dot_general from {_where(g, 1, 16)}\n"
            f"f32[3] named 'hidden' from {_where(g, 2, 8)}\n"
            f"f32[3] output of dot_general from {_where(g, 3, 16)}\n",
    }
    for policy, text in expect.items():
        fn = g if policy is None else jax.checkpoint(g, policy=policy)
        assert _residuals(fn, W, X) == text, policy


GRAD_DOTS_JAXPR = """let jaxpr = { lambda ; a:f32[3] b:f32[3] c:f32[3,3] d:f32[3] e:f32[]. let
    f:f32[3] = sin a
    g:f32[3] = cos a
    h:f32[3] = name[name=hidden] f
    i:f32[3] = sin b
    j:f32[3] = broadcast_in_dim e
    k:f32[3] = neg j
    l:f32[3] = mul k i
    m:f32[3] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] l c
    n:f32[3,3] = dot_general[
      dimension_numbers=(([], []), ([], []))
      preferred_element_type=float32
    ] l h
    o:f32[3] = mul m g
    p:f32[3,3] = dot_general[
      dimension_numbers=(([], []), ([], []))
      preferred_element_type=float32
    ] o d
    q:f32[3,3] = add_any n p
  in (q,) } in
{ lambda ; r:f32[3,3] s:f32[3]. let
    t:f32[3] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] r s
    u:f32[3] = reduce_precision[exponent_bits=8 mantissa_bits=23] t
    v:f32[3] = sin u
    w:f32[3] = name[name=hidden] v
    x:f32[3] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] r w
    y:f32[3] = reduce_precision[exponent_bits=8 mantissa_bits=23] x
    z:f32[3] = cos y
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] z
    ba:f32[3,3] = remat2[
      differentiated=True
      jaxpr=jaxpr
      policy=DotsSaveable(only_if_no_batch_dims=False)
      prevent_cse=True
    ] u y r s 1.0:f32[]
  in (ba,) }"""


def test_checkpoint_policy_jaxpr_matches_jax():
    gc = jax.checkpoint(g, policy=cp.dots_saveable)
    assert str(jax.make_jaxpr(jax.grad(gc))(W, X)) == GRAD_DOTS_JAXPR
    assert "e:f32[3] = name[name=hidden] d" in str(jax.make_jaxpr(g)(W, X))


POLICIES = [None, cp.nothing_saveable, cp.everything_saveable, cp.dots_saveable,
            cp.checkpoint_dots, cp.dots_with_no_batch_dims_saveable,
            cp.checkpoint_dots_with_no_batch_dims, cp.save_only_these_names("hidden"),
            cp.save_any_names_but_these("hidden"), cp.save_anything_except_these_names("hidden"),
            cp.save_from_both_policies(cp.dots_saveable, cp.save_only_these_names("hidden")),
            cp.offload_dot_with_no_batch_dims("device", "pinned_host"),
            cp.save_and_offload_only_these_names(
                names_which_can_be_saved=["hidden"], names_which_can_be_offloaded=[],
                offload_src="device", offload_dst="pinned_host")]


def h(w, x):
    y = checkpoint_name(jnp.sin(w @ x), "hidden")
    return jnp.sum(jnp.cos(w @ y) * x)


@pytest.mark.parametrize("policy", POLICIES, ids=range(len(POLICIES)))
def test_checkpoint_policies_keep_derivatives(policy):
    w, x = jnp.arange(9.).reshape(3, 3) / 10, jnp.arange(3.) / 3
    xs = jnp.stack([x, 2 * x])
    hc = jax.checkpoint(h, policy=policy)
    ref = jax.grad(h, argnums=(0, 1))(w, x)
    for fn in (jax.grad(hc, argnums=(0, 1)), jax.jit(jax.grad(hc, argnums=(0, 1))),
               jax.grad(jax.jit(hc), argnums=(0, 1))):
        for a, b in zip(fn(w, x), ref):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(hc), in_axes=(None, 0))(w, xs),
                               jax.vmap(jax.grad(h), in_axes=(None, 0))(w, xs), rtol=1e-6)
    np.testing.assert_allclose(
        jax.grad(lambda w: jnp.sum(jax.vmap(hc, in_axes=(None, 0))(w, xs)))(w),
        jax.grad(lambda w: jnp.sum(jax.vmap(h, in_axes=(None, 0))(w, xs)))(w), rtol=1e-6)
    np.testing.assert_allclose(jax.hessian(lambda x: hc(w, x))(x),
                               jax.hessian(lambda x: h(w, x))(x), rtol=1e-5)


def test_checkpoint_name_and_policy_errors():
    assert checkpoint_name({"a": 1.0}, "n") == {"a": 1.0}
    with pytest.raises(ValueError, match="The names should be exclusive"):
        cp.save_and_offload_only_these_names(names_which_can_be_saved=["a"],
                                             names_which_can_be_offloaded=["a"],
                                             offload_src="device", offload_dst="pinned_host")
    both = cp.save_from_both_policies(cp.offload_dot_with_no_batch_dims("d", "h"),
                                      cp.nothing_saveable)
    with pytest.raises(ValueError, match="The return value of the policies should be a boolean"):
        jax.grad(jax.checkpoint(g, policy=both))(W, X)


# -- source_info_util and named_scope


def test_name_stacks_and_named_scope():
    from xjit.extend import source_info_util as siu
    assert str(siu.NameStack().extend("a").transform("jvp").extend("b").extend("c")) == \
        "a/jvp(b)/c"
    assert str(siu.new_name_stack("x").extend("y")) == "x/y"
    seen = []

    @jax.named_scope("outer")
    def body(x):
        with jax.named_scope("inner"):
            seen.append(str(siu.current_name_stack()))
        return x
    body(1.0)
    assert seen == ["outer/inner"] and str(siu.current_name_stack()) == ""
    info = siu.current()
    assert siu.summarize(info).startswith(f"{__file__}:")


# -- partial_eval entry points


def test_partial_eval_entry_points():
    from xjit.extend import linear_util as lu
    from xjit.interpreters import partial_eval as pe
    a3 = jax.core.ShapedArray((3,), np.float32)

    def fn(x, y):
        return [jnp.sin(x) * y, jnp.cos(x)]
    jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(lu.wrap_init(fn), [a3, a3])
    assert str(jaxpr) == ("{ lambda ; a:f32[3] b:f32[3]. let\n    c:f32[3] = sin a\n"
                          "    d:f32[3] = mul c b\n    e:f32[3] = cos a\n  in (d, e) }")
    assert out_avals == [a3, a3] and consts == []
    pruned, used = pe.dce_jaxpr(jaxpr, [False, True])
    assert (str(pruned), used) == ("{ lambda ; a:f32[3]. let b:f32[3] = cos a in (b,) }",
                                   [True, False])
    pruned, used = pe.dce_jaxpr(jaxpr, [False, True], instantiate=True)
    assert (str(pruned), used) == ("{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = cos a in (c,) }",
                                   [True, True])
    jaxpr, out_pvals, consts = pe.trace_to_jaxpr_nounits(
        lu.wrap_init(fn), [pe.PartialVal.known(jnp.arange(3.)), pe.PartialVal.unknown(a3)])
    assert str(jaxpr) == "{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = mul a b in (c,) }"
    assert [p.is_known() for p in out_pvals] == [False, True] and len(consts) == 1
    np.testing.assert_allclose(out_pvals[1].get_known(), np.cos(np.arange(3.)), rtol=1e-6)
    np.testing.assert_allclose(jax.core.eval_jaxpr(jaxpr, consts, jnp.ones(3))[0],
                               np.sin(np.arange(3.)), rtol=1e-6)


# -- mlir helpers, backend, stages


def test_mlir_helpers():
    from xjit.interpreters import mlir
    with mlir.make_ir_context(), mlir.ir.Location.unknown():
        assert str(mlir.aval_to_ir_type(jax.core.ShapedArray((2, 3), np.float32))) == \
            "tensor<2x3xf32>"
        assert str(mlir.dtype_to_ir_type(np.dtype(np.int8))) == "i8"
        assert str(mlir.dense_int_array([1, 2])) == "array<i64: 1, 2>"
        assert str(mlir.i32_attr(3)) == "3 : i32"
        assert str(mlir.ir_constant(np.float32(2.0)).type) == "tensor<f32>"
        assert str(mlir.token_type()) == "!stablehlo.token"
        module = mlir.ir.Module.parse("module {}")
        assert mlir.module_to_string(module).startswith("module")
        assert isinstance(mlir.module_to_bytecode(module), bytes)


def test_reprs_of_vars_literals_and_zeros_are_jaxs():
    """As JAX 0.10.2 prints them (``id`` is the object's)."""
    from xjit.extend import core as ecore
    from xjit.interpreters import ad
    j = jax.make_jaxpr(lambda x: x * 2.0 + 1)(jnp.arange(3.0))
    a, two = j.jaxpr.eqns[0].invars
    assert repr(a) == str(a) == f"Var(id={id(a)}):float32[3]"
    assert repr(two) == "Literal(2.0)" and repr(j.jaxpr.eqns[1].invars[1]) == "Literal(1.0)"
    v = ecore.Var(jax.core.ShapedArray((), np.int32, weak_type=True))
    assert repr(v) == f"Var(id={id(v)}):int32[]"
    assert repr(ad.Zero(jax.core.ShapedArray((3,), np.float32))) == "Zero(float32[3])"
    assert repr(ad.Zero(jax.core.ShapedArray((), np.float32, weak_type=True))) == \
        "Zero(~float32[])"


def test_api_module_has_the_transformations():
    """JAX's "How JAX primitives work" calls ``api.jit``, ``api.grad``..."""
    from xjit._src import api
    assert api.jit is jax.jit and api.grad is jax.grad and api.vmap is jax.vmap
    assert float(api.grad(lambda x: x * x)(3.0)) == 6.0
    assert api.jvp(lambda x: x * 2, (1.0,), (1.0,))[1] == 2.0


def test_rules_get_tuples_and_register_lowering_returns_none():
    """JVP and batching rules receive tuples, as JAX's traces pass them."""
    from xjit.extend.core import Primitive
    from xjit.interpreters import ad, batching, mlir
    seen = []
    p = Primitive("twice_tuples")
    p.def_impl(lambda x: 2 * x)
    p.def_abstract_eval(lambda x: x)
    assert mlir.register_lowering(p, mlir.lower_fun(lambda x: 2 * x, multiple_results=False)) \
        is None

    def jvp(primals, tangents):
        seen.append(("jvp", type(primals), type(tangents)))
        return p.bind(*primals), p.bind(*tangents)

    def batch(args, dims):
        seen.append(("batch", type(args), type(dims)))
        return p.bind(*args), dims[0]
    ad.primitive_jvps[p] = jvp
    batching.primitive_batchers[p] = batch
    assert float(jax.jvp(p.bind, (1.0,), (3.0,))[1]) == 6.0
    assert jax.vmap(p.bind)(jnp.arange(2.0)).tolist() == [0.0, 2.0]
    assert seen == [("jvp", tuple, tuple), ("batch", tuple, tuple)]


def test_defbilinear_gives_product_rule_derivatives():
    from xjit.extend.core import Primitive
    from xjit.interpreters import ad, mlir
    p = Primitive("bilinear_mul")
    p.def_impl(lambda x, y: x * y)
    p.def_abstract_eval(lambda x, y: x)
    mlir.register_lowering(p, mlir.lower_fun(lambda x, y: x * y, multiple_results=False))
    ad.defbilinear(p, lambda ct, x, y: ct * y, lambda ct, x, y: x * ct)

    def f(x, y):  # x ** 3 * y
        return p.bind(x, y) * p.bind(x, x)
    for grad in (jax.grad(f, (0, 1)), jax.jit(jax.grad(f, (0, 1)))):
        assert [float(g) for g in grad(2.0, 3.0)] == [36.0, 8.0]
    assert float(jax.jvp(f, (2.0, 3.0), (1.0, 0.5))[1]) == 40.0


def test_stages_expose_args_info_and_the_executable():
    """What ``inspect`` builds on (public stage APIs, as JAX's)."""
    lowered = jax.jit(lambda x, y: x + y, donate_argnums=1).lower(jnp.ones(2), jnp.ones(2))
    compiled = lowered.compile()
    args, kwargs = compiled.args_info
    assert [a.donated for a in args] == [False, True] and kwargs == {}
    assert args[0].shape == (2,) and lowered.args_info == compiled.args_info
    assert compiled.runtime_executable().hlo_modules()[0].name
    assert "loc(" in lowered.as_text(debug_info=True)


def test_backend_and_stages():
    from xjit.extend import backend
    from xjit import stages
    assert set(backend.backends()) >= {"cpu"}
    assert backend.get_backend().platform == jax.devices()[0].client.platform
    assert backend.get_default_device() == jax.devices()[0]
    jitted = jax.jit(lambda x: x * 2)
    assert isinstance(jitted, stages.Wrapped) and not isinstance(lambda x: x, stages.Wrapped)
    lowered = jitted.trace(1.0).lower()
    assert isinstance(lowered, stages.Lowered)
    assert isinstance(lowered.compile(), stages.Compiled)
    info = stages.ArgInfo(jax.core.ShapedArray((2,), np.float32), False)
    assert (info.shape, info.dtype, info.donated) == ((2,), np.float32, False)


def test_custom_derivatives_helpers():
    from xjit import custom_derivatives as cd
    z = cd.zero_from_primal({"a": jnp.ones(2), "b": 3}, symbolic_zeros=False)
    np.testing.assert_array_equal(z["a"], [0., 0.])
    assert z["b"].dtype == jax.dtypes.float0
    assert repr(cd.zero_from_primal(jnp.ones(2), symbolic_zeros=True)) == "SymbolicZero"


LINEAR_CALL_JAXPR = """{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = linear_call[
      callee={ lambda ; d:f32[] e:f32[]. let f:f32[] = mul e d in (f,) }
      num_callee_consts=0
      num_res=1
      transpose_thunk=TRANSPOSE
    ] a b
  in (c,) }"""


def test_linear_call():
    import re
    from xjit.custom_derivatives import linear_call

    def fn(r, x):
        return x * r

    def tp(r, t):
        return t * r

    def f(r, x):
        return linear_call(fn, tp, r, x)
    text = re.sub(r"transpose_thunk=<function [^\n]*>", "transpose_thunk=TRANSPOSE",
                  str(jax.make_jaxpr(f)(2., 3.)))
    assert text == LINEAR_CALL_JAXPR
    assert jax.grad(f, argnums=1)(2., 3.) == 2.0
    assert [float(v) for v in jax.jvp(lambda x: f(2., x), (3.,), (1.,))] == [6.0, 2.0]
    transposed = str(jax.make_jaxpr(jax.linear_transpose(lambda x: f(2., x), 1.))(1.))
    assert "] 2.0:f32[] a" in transposed and "linear_call[" in transposed
    assert jax.linear_transpose(lambda x: f(2., x), 1.)(5.0)[0] == 10.0
    for g in (jax.grad(lambda x: linear_call(fn, tp, 2., x) ** 2),
              jax.jit(jax.grad(lambda x: linear_call(fn, tp, 2., x) ** 2))):
        assert g(3.) == 24.0
    # the transpose is what the user wrote, even where it is not fn's true transpose
    assert jax.grad(lambda x: linear_call(fn, lambda r, t: 3 * t, 2., x))(1.) == 3.0
    out = linear_call(lambda r, x: (x[0] * r, x[1]), lambda r, t: (t[0] * r, t[1]), 2.,
                      (1., 2.))
    assert [float(o) for o in out] == [2.0, 2.0]
    with pytest.raises(AssertionError, match="differentiating with respect to residual_args"):
        jax.grad(f)(2., 3.)
    with pytest.raises(TypeError, match="transpose output pytree structure must match"):
        jax.grad(lambda x: linear_call(fn, lambda r, t: (t, t), 2., x))(1.)


# Recorded from JAX 0.10.2: what ``jax.core`` answers for names it moved or removed.
_CORE_REMOVED = {
    "TraceTag": "jax.core.TraceTag was deprecated in JAX v0.8.2 and removed in JAX v0.10.0. "
                "Use jax.extend.core.TraceTag.",
    "traverse_jaxpr_params": "jax.core.traverse_jaxpr_params was deprecated in JAX v0.8.2 and "
                             "removed in JAX v0.10.0.",
    "get_aval": "jax.core.get_aval was deprecated in JAX v0.8.2 and removed in JAX v0.10.0; "
                "use jax.typeof instead.",
}
_CORE_DEPRECATED = {
    "CallPrimitive": "jax.core.CallPrimitive is deprecated. Use jax.extend.core.CallPrimitive.",
    "JaxprTypeError": "jax.core.JaxprTypeError is deprecated. Use jax.errors.JaxprTypeError.",
    "trace_ctx": "jax.core.trace_ctx is deprecated.",
    "find_top_trace": "jax.core.find_top_trace is deprecated. Use jax.extend.core.find_top_trace.",
}


@pytest.mark.parametrize("name", sorted(_CORE_REMOVED))
def test_core_removed_names_say_where_they_went(name):
    import xjit.core
    with pytest.raises(AttributeError) as e:
        getattr(xjit.core, name)
    assert str(e.value) == _CORE_REMOVED[name]


@pytest.mark.parametrize("name", sorted(_CORE_DEPRECATED))
def test_core_deprecated_names_warn_and_answer(name):
    import xjit.core
    from xjit.extend import core as extend_core
    with pytest.warns(DeprecationWarning) as w:
        value = getattr(xjit.core, name)
    assert str(w[0].message) == _CORE_DEPRECATED[name]
    assert value is getattr(extend_core, name, value)


def test_call_primitive_calls_in_place():
    from xjit.extend.core import CallPrimitive, TraceTag, call_impl
    my_call_p = CallPrimitive("my_call")
    assert my_call_p.multiple_results and my_call_p.call_primitive
    f = lambda x: [jnp.sin(x) * 2]
    assert np.allclose(my_call_p.bind(f, 1.0, some_param=3)[0], 2 * np.sin(1.0))
    assert np.allclose(call_impl(f, 1.0, some_param=3)[0], 2 * np.sin(1.0))
    g = jax.grad(lambda y: my_call_p.bind(lambda z: [jnp.sin(z) * 2], y)[0])
    assert np.allclose(jax.jit(g)(0.5), 2 * np.cos(0.5))
    assert TraceTag() == TraceTag() and hash(TraceTag()) == hash(TraceTag())
