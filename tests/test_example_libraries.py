"""``xjit.example_libraries.optimizers`` and ``.stax`` against JAX 0.10.2.

Each case (optimizer steps on a small MLP, schedules, stax layers' init and
apply) is replayed on xjit and compared with what JAX 0.10.2 returned or
raised for the same code and keys (``example_libraries.json``, written by
``scripts/record_example_libraries.py``). The module's names and the
``import jax.example_libraries...`` takeover are checked directly.
"""
import importlib
import os
import subprocess
import sys
import textwrap

import pytest
import recorded

PRELUDE = '''
import importlib
optimizers = importlib.import_module(jax.__name__ + ".example_libraries.optimizers")
stax = importlib.import_module(jax.__name__ + ".example_libraries.stax")
KEY = jax.random.PRNGKey(0)
X = jax.random.normal(jax.random.PRNGKey(2), (5, 3))
Y = jnp.arange(5.0)
IMG = jax.random.normal(jax.random.PRNGKey(3), (2, 6, 6, 3))

def params():
    k1, k2 = jax.random.split(jax.random.PRNGKey(1))
    # the scalar leaf takes sm3's rank-0 path
    return {"w": jax.random.normal(k1, (3, 4)), "b": jnp.zeros(4),
            "v": [jax.random.normal(k2, (4,)), jnp.float32(0.5)]}

def loss(p):
    h = jnp.tanh(X @ p["w"] + p["b"])
    return jnp.mean((h @ p["v"][0] + p["v"][1] - Y) ** 2)

def train(opt, steps=4, jit=False):
    init, update, get_params = opt
    update = jax.jit(update) if jit else update
    state = init(params())
    for i in range(steps):
        state = update(i, jax.grad(loss)(get_params(state)), state)
    return get_params(state)

def layer(lyr, shape, x=None, key=KEY, **kw):
    """(output shape, params, output) of a stax layer at input shape ``shape``."""
    init, apply = lyr
    out_shape, p = init(key, shape)
    x = jax.random.normal(jax.random.PRNGKey(4), shape) if x is None else x
    return out_shape, p, apply(p, x, **kw)

CNN = stax.serial(stax.Conv(4, (3, 3), padding="SAME"), stax.BatchNorm(), stax.Relu,
                  stax.MaxPool((2, 2), strides=(2, 2)), stax.Flatten, stax.Dense(5),
                  stax.LogSoftmax)
BLOCK = stax.serial(stax.FanOut(2), stax.parallel(stax.serial(stax.Dense(4), stax.Relu),
                                                  stax.Dense(4)), stax.FanInSum)

def cnn_train(steps=2):
    init, apply = CNN
    _, p = init(KEY, IMG.shape)
    # not an adaptive optimizer: BatchNorm makes the conv bias's gradient
    # rounding noise, which Adam would scale up to full-size steps
    opt = optimizers.momentum(0.05, 0.9)
    state = opt.init_fn(p)
    cnn_loss = lambda p: -jnp.mean(apply(p, IMG)[:, 1])
    for i in range(steps):
        state = jax.jit(opt.update_fn)(i, jax.grad(cnn_loss)(opt.params_fn(state)), state)
    return opt.params_fn(state)
'''

OPTIMIZERS = {
    "sgd": "optimizers.sgd(0.1)",
    "momentum": "optimizers.momentum(0.1, 0.9)",
    "nesterov": "optimizers.nesterov(0.1, mass=0.8)",
    "adagrad": "optimizers.adagrad(0.5)",
    "rmsprop": "optimizers.rmsprop(0.05)",
    "rmsprop_momentum": "optimizers.rmsprop_momentum(0.05, momentum=0.5)",
    "adam": "optimizers.adam(0.1)",
    "adamax": "optimizers.adamax(0.1)",
    "sm3": "optimizers.sm3(0.5)",
}
SCHEDULES = {
    "exponential_decay": "optimizers.exponential_decay(0.1, 2, 0.5)",
    "inverse_time_decay": "optimizers.inverse_time_decay(0.1, 2, 0.5)",
    "inverse_time_decay_staircase": "optimizers.inverse_time_decay(0.1, 2, 0.5, staircase=True)",
    "polynomial_decay": "optimizers.polynomial_decay(0.1, 3, 0.01, power=2.0)",
    "piecewise_constant": "optimizers.piecewise_constant([1, 2], [0.1, 0.05, 0.01])",
    "constant": "optimizers.constant(0.1)",
}

CASES = {
    **{f"opt:{n}": f"train({e})" for n, e in OPTIMIZERS.items()},
    **{f"opt:{n}:jit": f"train({e}, jit=True)" for n, e in OPTIMIZERS.items()},
    **{f"schedule:{n}": f"[{e}(i) for i in range(5)]" for n, e in SCHEDULES.items()},
    **{f"schedule:{n}:traced": f"jax.vmap({e})(jnp.arange(5))" for n, e in SCHEDULES.items()
       if n != "constant"},
    **{f"schedule:{n}:adam": f"train(optimizers.adam({e}), jit=True)"
       for n, e in SCHEDULES.items()},
    "opt:state": "optimizers.momentum(0.1, 0.9).init_fn(params())",
    "opt:state_leaves": "jax.tree.leaves(optimizers.sm3(0.1).init_fn(params()))",
    "opt:state_structure": "str(jax.tree.structure(optimizers.adam(0.1).init_fn(params())))",
    "opt:unpacked": "jax.tree.map(lambda j: list(j), optimizers.unpack_optimizer_state("
                    "optimizers.adam(0.1).init_fn(params())), "
                    "is_leaf=lambda j: isinstance(j, optimizers.JoinPoint))",
    "opt:pack_roundtrip": "str(jax.tree.structure(optimizers.pack_optimizer_state("
                          "optimizers.unpack_optimizer_state(optimizers.rmsprop(0.1)"
                          ".init_fn(params())))))",
    "opt:pack_roundtrip_values": "optimizers.pack_optimizer_state(optimizers."
                                 "unpack_optimizer_state(optimizers.adagrad(0.1)"
                                 ".update_fn(0, params(), optimizers.adagrad(0.1)"
                                 ".init_fn(params())))).packed_state",
    "opt:grad_tree_mismatch": "optimizers.sgd(0.1).update_fn(0, [1.0], "
                              "optimizers.sgd(0.1).init_fn(params()))",
    "opt:make_schedule_list": "optimizers.make_schedule([0.1, 0.2])",
    "opt:piecewise_lengths": "optimizers.piecewise_constant([1, 2], [0.1, 0.2])",
    "opt:piecewise_ndim": "optimizers.piecewise_constant(1, [0.1, 0.2])",
    "util:l2_norm": "optimizers.l2_norm(params())",
    "util:clip_grads": "optimizers.clip_grads(params(), 1.0)",
    "util:clip_grads_noop": "optimizers.clip_grads(params(), 100.0)",
    "stax:cnn": "layer(CNN, IMG.shape, IMG)",
    "stax:cnn_train": "cnn_train()",
    "stax:cnn_jit_grad": "jax.jit(jax.grad(lambda p: jnp.sum(CNN[1](p, IMG) ** 2)))("
                         "CNN[0](KEY, IMG.shape)[1])",
    "stax:fanout_parallel_sum": "layer(BLOCK, (3, 5))",
    "stax:fanout_parallel_concat": "layer(stax.serial(stax.FanOut(3), stax.parallel("
                                   "stax.Dense(2), stax.Identity, stax.Tanh), "
                                   "stax.FanInConcat()), (3, 5))",
    "stax:concat_axis0": "layer(stax.serial(stax.FanOut(2), stax.FanInConcat(0)), (3, 5))",
    "stax:dense_custom_init": "layer(stax.Dense(3, W_init=stax.randn(0.5), "
                              "b_init=jax.nn.initializers.ones), (2, 4))",
    "stax:conv_strided": "layer(stax.Conv(3, (2, 3), strides=(2, 1), padding='VALID'), "
                         "(2, 7, 6, 2))",
    "stax:general_conv_nchw": "layer(stax.GeneralConv(('NCHW', 'OIHW', 'NCHW'), 3, (3, 3), "
                              "padding='SAME'), (1, 2, 5, 5))",
    "stax:conv_transpose": "layer(stax.ConvTranspose(2, (3, 3), strides=(2, 2), "
                           "padding='SAME'), (1, 4, 4, 3))",
    "stax:conv1d_transpose": "layer(stax.Conv1DTranspose(2, (3,), strides=(2,)), (2, 5, 3))",
    "stax:batchnorm_axis_int": "layer(stax.BatchNorm(axis=0), (4, 3))",
    "stax:batchnorm_no_center": "layer(stax.BatchNorm(axis=(0,), center=False, "
                                "gamma_init=jax.nn.initializers.normal()), (4, 3))",
    "stax:batchnorm_no_scale": "layer(stax.BatchNorm(axis=(0,), scale=False, "
                               "beta_init=jax.nn.initializers.normal()), (4, 3))",
    "stax:batchnorm_plain": "layer(stax.BatchNorm(axis=(0, 1), center=False, scale=False), "
                            "(4, 3, 2))",
    "stax:elementwise": "[stax.serial(f)[1]([()], X) for f in (stax.Tanh, stax.Relu, stax.Exp, "
                        "stax.LogSoftmax, stax.Softmax, stax.Softplus, stax.Sigmoid, stax.Elu, "
                        "stax.LeakyRelu, stax.Selu, stax.Gelu)]",
    "stax:elementwise_kwargs": "layer(stax.elementwise(jax.nn.leaky_relu, "
                               "negative_slope=0.3), (2, 3))",
    "stax:maxpool_same": "layer(stax.MaxPool((3, 3), strides=(2, 2), padding='SAME'), "
                         "(1, 5, 5, 2))",
    "stax:sumpool": "layer(stax.SumPool((2, 2)), (1, 4, 5, 2))",
    "stax:avgpool_same": "layer(stax.AvgPool((3, 3), strides=(2, 2), padding='SAME'), "
                         "(1, 5, 5, 2))",
    "stax:avgpool_spec": "layer(stax.AvgPool((2, 2), padding='SAME', spec='NCHW'), "
                         "(1, 2, 3, 3))",
    "stax:maxpool_1d": "layer(stax.MaxPool((2,), strides=(2,)), (2, 6, 3))",
    "stax:flatten": "layer(stax.Flatten, (2, 3, 4))",
    "stax:dropout_train": "layer(stax.Dropout(0.6), (4, 5), rng=jax.random.PRNGKey(7))",
    "stax:dropout_test_mode": "layer(stax.Dropout(0.6, mode='test'), (4, 5), "
                              "rng=jax.random.PRNGKey(7))",
    "stax:dropout_no_rng": "layer(stax.Dropout(0.5), (4, 5))",
    "stax:serial_rng": "layer(stax.serial(stax.Dense(4), stax.Dropout(0.5), stax.Dense(2), "
                       "stax.Dropout(0.7)), (3, 5), rng=jax.random.PRNGKey(8))",
    "stax:parallel_rng_typed_key": "layer(stax.serial(stax.FanOut(2), stax.parallel("
                                   "stax.Dropout(0.5), stax.Dropout(0.5)), stax.FanInSum), "
                                   "(3, 4), key=jax.random.key(1), rng=jax.random.key(9))",
    "stax:shape_dependent": "layer(stax.shape_dependent(lambda s: stax.Dense(s[-1] * 2)), "
                            "(2, 3))",
    "stax:aliases": "[stax.glorot()(KEY, (3, 2)), stax.randn()(KEY, (2,)), "
                    "stax.logsoftmax(X)]",
}

# Differences from JAX that are understood; strict, so a fix shows as XPASS.
KNOWN = {}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "example_libraries", PRELUDE, CASES, KNOWN, every=5)


# The modules' own names (JAX 0.10.2's, less the modules and typing helpers
# they import).
NAMES = {
    "optimizers": "Array InitFn JoinPoint Optimizer OptimizerState Params ParamsFn Schedule "
                  "State Step UpdateFn Updates adagrad adam adamax clip_grads constant "
                  "exponential_decay inverse_time_decay l2_norm make_schedule momentum "
                  "nesterov optimizer pack_optimizer_state piecewise_constant polynomial_decay "
                  "rmsprop rmsprop_momentum sgd sm3 unpack_optimizer_state",
    "stax": "AvgPool BatchNorm Conv Conv1DTranspose ConvTranspose Dense Dropout Elu Exp "
            "FanInConcat FanInSum FanOut Flatten Gelu GeneralConv GeneralConvTranspose "
            "Identity LeakyRelu LogSoftmax MaxPool Relu Selu Sigmoid Softmax Softplus SumPool "
            "Tanh elementwise elu gelu glorot glorot_normal leaky_relu log_softmax logsoftmax "
            "normal ones parallel randn relu selu serial shape_dependent sigmoid softmax "
            "softplus standardize zeros",
}
# Names JAX's modules have only because of their own imports.
_IMPORTED = {"Any", "Callable", "NamedTuple", "annotations", "functools", "jax", "jnp", "lax",
             "map", "math", "namedtuple", "partial", "random", "safe_map", "safe_zip",
             "unzip2", "zip"}


@pytest.mark.parametrize("module", sorted(NAMES))
def test_names(module):
    mod = importlib.import_module(f"xjit.example_libraries.{module}")
    assert [n for n in NAMES[module].split() if not hasattr(mod, n)] == []


@pytest.mark.compare
@pytest.mark.parametrize("module", sorted(NAMES))
def test_names_are_jaxs(module):
    jmod = importlib.import_module(f"jax.example_libraries.{module}")
    public = {n for n in dir(jmod) if not n.startswith("_")} - _IMPORTED
    assert sorted(public) == sorted(NAMES[module].split())


def test_optimizer_state_is_a_pytree_node():
    import xjit as jax
    from xjit.example_libraries import optimizers
    state = optimizers.adam(0.1).init_fn({"a": jax.numpy.ones(2), "b": jax.numpy.zeros(3)})
    leaves, treedef = jax.tree.flatten(state)
    assert len(leaves) == 6  # (x, m, v) per parameter
    back = jax.tree.unflatten(treedef, leaves)
    assert isinstance(back, optimizers.OptimizerState) and back.tree_def == state.tree_def


def test_import_under_takeover():
    code = textwrap.dedent("""
        import xjit
        xjit.install_as_jax()
        from jax.example_libraries import optimizers, stax
        import jax.example_libraries.optimizers as o
        import xjit.example_libraries.optimizers, xjit.example_libraries.stax
        assert o is optimizers is xjit.example_libraries.optimizers
        assert stax is xjit.example_libraries.stax
        init, apply = stax.serial(stax.Dense(2), stax.Relu)
        print(init(xjit.random.PRNGKey(0), (1, 3))[0])
    """)
    env = {**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(recorded.HERE), "core")}
    env.pop("XJIT_NO_JAX_TAKEOVER", None)
    proc = subprocess.run([sys.executable, "-c", code], check=False, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(1, 2)"
