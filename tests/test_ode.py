"""``jax.experimental.ode.odeint`` as JAX 0.10.2.

Each case is compared with what JAX returned or raised (``ode.json``, written
by ``scripts/record_ode.py``): solutions (array, scalar, pytree and complex
states; tolerances, ``mxstep`` and ``hmax``; float64), gradients through the
adjoint with respect to ``y0``, ``t``, ``args`` and closed-over values, in
every composition order with jit and vmap, and JAX's errors. The same step
sizes give the same values to float rounding, so a different step-size rule
fails the value cases. A printed jaxpr is compared by its primitives and the
names it shows (the solver's jit and custom_vjp), not equation by equation:
constant hoisting and jaxpr sharing in the printer are the engine's own.
"""
import recorded

PRELUDE = '''
import importlib
import re
odeint = importlib.import_module(jax.__name__ + ".experimental.ode").odeint
T = jnp.linspace(0., 2., 4)
Y0 = jnp.array([1., 2.])
K = jnp.array([0.5, 1.5])

def decay(y, t, k):
    return -k * y + jnp.sin(t)

def oscillator(state, t, w):
    return {"p": -w ** 2 * state["q"], "q": state["p"]}

def solve(y0, t, k):
    return odeint(decay, y0, t, k)

def loss(y0, t, k):
    return jnp.sum(solve(y0, t, k) ** 2)

def x64(thunk):
    with jax.enable_x64(True):
        return thunk()

def features(fn, *args):
    """The primitives a jaxpr uses and the names it shows, as one line."""
    text = str(jax.make_jaxpr(fn)(*args))
    prims = set(re.findall(r"= ([a-z_][\\w-]*)(?=[\\[ \\n])", text))
    names = set(re.findall(r"\\b((?:name|bwd|fwd)=\\w+)", text))
    return " ".join(sorted(prims) + sorted(names))
'''

CASES = {
    # solutions
    "value:decay": "solve(Y0, T, 0.7)",
    "value:scalar_state": "odeint(lambda y, t: -y * t, 1.0, T)",
    "value:pytree_state": "odeint(oscillator, {'p': jnp.zeros(2), 'q': Y0}, T, 2.0)",
    "value:two_args": "odeint(lambda y, t, a, b: a * jnp.cos(b * t) - y, Y0, T, 1.5, 2.0)",
    "value:pytree_args": "odeint(lambda y, t, p: p['a'] * jnp.cos(p['b'] * t) - y, Y0, T, "
                         "{'a': 1.5, 'b': 2.0})",
    "value:complex": "(lambda z: (z.real, z.imag))(odeint(lambda y, t: 1j * y, "
                     "jnp.ones(2, jnp.complex64), T))",
    "value:loose_tol": "odeint(decay, Y0, T, 0.7, rtol=1e-3, atol=1e-3)",
    "value:mxstep": "odeint(decay, Y0, T, 0.7, mxstep=2)",
    "value:hmax": "odeint(decay, Y0, T, 0.7, hmax=0.05)",
    "value:stiffish": "odeint(lambda y, t: -50. * (y - jnp.cos(t)), Y0, jnp.linspace(0., 1., 3))",
    "value:x64": "x64(lambda: odeint(decay, jnp.array([1., 2.]), jnp.linspace(0., 2., 4), 0.7))",
    "value:one_time": "solve(Y0, T[:1], 0.7)",
    # transformations of the solve
    "jit": "jax.jit(solve)(Y0, T, 0.7)",
    "vmap_args": "jax.vmap(solve, (None, None, 0))(Y0, T, K)",
    "vmap_y0": "jax.vmap(solve, (0, None, None))(jnp.stack([Y0, -Y0]), T, 0.7)",
    "jit_vmap": "jax.jit(jax.vmap(solve, (None, None, 0)))(Y0, T, K)",
    # gradients through the adjoint, in every composition order
    "grad:y0_t_args": "jax.grad(loss, (0, 1, 2))(Y0, T, 0.7)",
    "grad:jit": "jax.jit(jax.grad(loss, (0, 2)))(Y0, T, 0.7)",
    "grad:grad_jit": "jax.grad(jax.jit(loss), 2)(Y0, T, 0.7)",
    "grad:vmap_grad": "jax.vmap(jax.grad(loss, 2), (None, None, 0))(Y0, T, K)",
    "grad:grad_vmap": "jax.grad(lambda k: jax.vmap(loss, (None, None, 0))(Y0, T, k).sum())(K)",
    "grad:closure": "jax.grad(lambda k: odeint(lambda y, t: -k * y, Y0, T).sum())(0.7)",
    "grad:pytree_args": "jax.grad(lambda p: odeint(lambda y, t, p: p['a'] * jnp.cos(p['b'] * t) "
                        "- y, Y0, T, p).sum())({'a': 1.5, 'b': 2.0})",
    "grad:pytree_state": "jax.grad(lambda w: odeint(oscillator, {'p': jnp.zeros(2), 'q': Y0}, "
                         "T, w)['q'].sum())(2.0)",
    "grad:x64": "x64(lambda: jax.grad(loss, 2)(jnp.array([1., 2.]), jnp.linspace(0., 2., 4), "
                "0.7))",
    # errors
    "error:str_arg": "odeint(decay, Y0, T, 'abc')",
    "error:function_arg": "odeint(decay, Y0, T, decay)",
    "error:int_times": "odeint(decay, Y0, jnp.arange(3), 0.7)",
    "error:list_times": "odeint(decay, Y0, [0., 1.], 0.7)",
    "error:int_state": "odeint(decay, jnp.ones(2, jnp.int32), T, 0.7)",
    # printed jaxprs
    "jaxpr:solve": "features(lambda y0, k: solve(y0, T, k), Y0, 0.7)",
    "jaxpr:grad": "features(jax.grad(loss, 2), Y0, T, 0.7)",
}

KNOWN = {}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "ode", PRELUDE, CASES, KNOWN, every=6)
