"""The engine hooks that libraries reach into beyond JAX's user API, each as a
small program compared with what JAX 0.10.2 returned
(``ecosystem_hooks.json``; re-record with ``python tests/test_ecosystem_hooks.py``,
which needs the `compare` extra):

* ``jax.lib.__version__``, which equinox's tests gate a workaround on;
* ``vmap`` handing an argument with ``in_axes`` None to the function as it
  is, a Python callable or int included (equinox's adaptive pools vmap over
  the pooling function);
* transformations wrapping any callable as JAX's ``util.wraps`` does:
  ``__wrapped__`` points at the function (equinox warns when a module holds a
  transformed callable by following it), and a callable whose ``__name__`` is
  not a string (an equinox Module's field sentinel) is still transformed;
* ``Primitive.get_bind_params`` and binding with the ``subfuns`` it returns,
  which equinox's jaxpr interpreters (``finalise_jaxpr``) do for every
  equation, ``custom_jvp_call`` included: the re-bound call keeps its rule
  (a rule that differs from the function's derivative) in every composition;
* ``Lowered.cost_analysis()``, XLA's estimates before optimization (flax's
  ``nnx.tabulate`` reads its flops);
* an array-like pytree node (``__jax_array__`` and attribute forwarding, as a
  flax ``Variable``) taken by ``jnp`` functions under ``jit`` and ``grad``;
* a ``custom_vjp`` rule's cotangents arriving as arrays, grad's seed and an
  unused output's zero included (flax's rules read their ``.shape``);
* ``scan``/``while_loop``/``cond`` of the same function on the same types
  traced once (flax's ``nnx.scan`` tests count the traces);
* custom rules whose ``nondiff_argnums`` name a parameter left to its default
  (flax's fp8 ``dot_general_with_precision``), and a ``custom_vjp`` whose bwd
  turns zero cotangents into nonzero ones (flax's fp8 ``in_q`` passes its new
  scale and history through), run when its outputs feed the result, not when
  they are unused or stopped;
* ``vjp``/``grad`` with respect to a PRNG key give float0 zeros (flax's
  ``tabulate`` differentiates with respect to its rngs);
* ``jit`` given both ``static_argnums`` and ``static_argnames`` takes them as
  they are, inferring neither from the other (flax's ``nn.jit``, whose wrapper
  carries the inner function's signature).
"""
import os
import subprocess
import sys

import recorded

PRELUDE = '''
import jaxlib

@jax.custom_jvp
def f(x):
    return jnp.sin(x)
@f.defjvp
def f_jvp(p, t):
    return f(p[0]), 3.0 * t[0]

def make_k(y):
    @jax.custom_jvp
    def k(x):
        return x * y
    @k.defjvp
    def k_jvp(p, t):
        return k(p[0]), 10.0 * t[0] * y
    return k

def interpret(closed):
    """Evaluate a closed jaxpr by re-binding each equation with the params
    get_bind_params gives (equinox's finalise_eval_jaxpr)."""
    def run(*args):
        env = dict(zip(closed.jaxpr.constvars, closed.consts))
        env.update(zip(closed.jaxpr.invars, args))
        read = lambda v: v.val if type(v).__name__ == 'Literal' else env[v]
        for eqn in closed.jaxpr.eqns:
            params = eqn.primitive.get_bind_params(eqn.params)
            outs = eqn.primitive.bind(*map(read, eqn.invars), **params)
            env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
        return [read(v) for v in closed.jaxpr.outvars]
    return run

G = interpret(jax.make_jaxpr(lambda x: f(x) * 2.0)(1.0))
g = lambda x: G(x)[0]
H = interpret(jax.make_jaxpr(lambda x, y: make_k(y)(x) + y)(1.0, 2.0))
h = lambda x, y: H(x, y)[0]
K = interpret(jax.make_jaxpr(make_k(jnp.array([2.0, -3.0])))(jnp.ones(2)))
k = lambda x: K(x)[0]
X = jnp.array([0.5, -1.0, 2.0])
Y = jnp.array([1.5, 2.0, -0.5])

def jvp_eqn(fn, *args):
    eqns = jax.make_jaxpr(fn)(*args).jaxpr.eqns
    return [e for e in eqns if e.primitive is jax.custom_derivatives.custom_jvp_call_p][0]

seen = []
def pool(x, n, op):
    seen.append(f"{type(n).__name__} {type(op).__name__}")
    return op(x) * n
def total(x):
    return x.sum()
class AsArray:
    def __jax_array__(self):
        return jnp.ones(2)
    def __call__(self, x):
        return x.sum()
class Odd:
    __name__ = 0  # not a string: copying it fails, as for an equinox Module
    def __call__(self, x):
        return (x * 2.0).sum()
TRANSFORMS = (jax.vmap, jax.grad, jax.value_and_grad, jax.jacfwd, jax.jacrev, jax.hessian,
              jax.checkpoint)
X23 = jnp.arange(6.0).reshape(2, 3) - 2.0

F_EQN = jvp_eqn(lambda x: f(x) * 2.0, 1.0)
F_BIND = F_EQN.primitive.get_bind_params(F_EQN.params)

class Boxed:
    def __init__(self, value):
        self.value = value
    def __jax_array__(self):
        return self.value
    def __getattr__(self, name):
        return getattr(self.__dict__["value"], name)
jax.tree_util.register_pytree_node(Boxed, lambda b: ((b.value,), None), lambda _, c: Boxed(c[0]))

ct_seen = []
@jax.custom_vjp
def cv(x):
    return jnp.sin(x), jnp.cos(x)
def cv_fwd(x):
    return cv(x), x
def cv_bwd(x, g):
    ct_seen.append(" ".join(f"{type(c).__name__} {c.shape} {c.dtype}" for c in g))
    return (jnp.cos(x) * g[0] - jnp.sin(x) * g[1],)
cv.defvjp(cv_fwd, cv_bwd)

@partial(jax.custom_jvp, nondiff_argnums=(2, 3))
def dflt(x, y, scale=2.0, shift=None):
    return x * y * scale + (0 if shift is None else shift)
@dflt.defjvp
def dflt_jvp(scale, shift, primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    return dflt(x, y, scale, shift), (tx * y + x * ty) * scale * 10
@partial(jax.custom_vjp, nondiff_argnums=(1,))
def power(x, n=3):
    return x ** n
power.defvjp(lambda x, n: (power(x, n), x), lambda n, x, ct: (ct * n * x ** (n - 1) * 100,))

@jax.custom_vjp
def seven(x):
    return x * 2
seven.defvjp(lambda x: (seven(x), None), lambda r, g: (jnp.full_like(g, 7.0),))
@jax.custom_vjp
def blocked(x):
    return x
blocked.defvjp(lambda x: (x, None), lambda r, g: (None,))

import functools
def lifted_inner(scope, a, b):
    return a * 2 if b == "hi" else a
@functools.wraps(lifted_inner)  # its signature is lifted_inner's, as flax's nn.jit wrapper's
def lifted(fingerprint, variables, rngs, *args, **kwargs):
    return lifted_inner(None, *args, **kwargs) + variables["p"].sum() + rngs["r"].sum()

def noisy(x, k):
    return x * 2 + jax.random.normal(k, x.shape)

def below(c):
    return c < 3.0
def count_traces(loop):
    """How often two runs of ``loop(body, cbody, i)`` (i = 0, 1) trace the
    functions, which are new to each case."""
    traces = []
    def body(c, x):
        traces.append(1)
        return c + x, x * 2
    def cbody(c):
        traces.append(1)
        return c + 1.0
    loop(body, cbody, 0)
    loop(body, cbody, 1)
    return len(traces)
'''

CASES = {
    "lib_version": "jax.lib.__version__",
    "lib_version_is_jaxlib": "str(jax.lib.__version__ == jaxlib.__version__)",
    "bind_params_keys": "' '.join(sorted(F_BIND))",
    "subfuns_types": "' '.join(type(s).__name__ for s in F_BIND['subfuns'])",
    "subfun_call": "F_BIND['subfuns'][0].call_wrapped(jnp.float32(1.0))",
    "rebound_value": "g(1.0)",
    "rebound_grad": "jax.grad(g)(1.0)",
    "rebound_jvp": "jax.jvp(g, (1.0,), (2.0,))",
    "rebound_vmap_grad": "jax.vmap(jax.grad(g))(X)",
    "rebound_grad_vmap": "jax.grad(lambda x: jax.vmap(g)(x).sum())(X)",
    "rebound_jit_grad": "jax.jit(jax.grad(g))(1.0)",
    "rebound_grad_jit": "jax.grad(jax.jit(g))(1.0)",
    "rebound_jaxpr": "str(jax.make_jaxpr(g)(1.0))",
    "rebound_grad_jaxpr": "str(jax.make_jaxpr(jax.grad(g))(1.0))",
    "vmap_unmapped_callable": "jax.vmap(pool, (0, None, None))(X23, 2, total)",
    "vmap_unmapped_seen": "str(jax.vmap(pool, (0, None, None))(X23, 3, jnp.max)) + ' ' + seen[-1]",
    "vmap_vmap_unmapped": "jax.vmap(jax.vmap(pool, (0, None, None)), (1, None, None), 1)("
                          "jnp.ones((2, 3, 4)), 2, total)",
    "jit_vmap_unmapped": "jax.jit(lambda x: jax.vmap(pool, (0, None, None))(x, 2, total))(X23)",
    "grad_vmap_unmapped": "jax.grad(lambda x: jax.vmap(pool, (0, None, None))(x, 2.0, jnp.max)"
                          ".sum())(X23)",
    "vmap_grad_unmapped": "jax.vmap(jax.grad(pool), (0, None, None))(X23, 2.0, total)",
    "vmap_mapped_callable": "jax.vmap(pool, (0, None, 0))(X23, 2, total)",
    "vmap_mapped_default": "jax.vmap(pool)(X23, jnp.ones(2), total)",
    "vmap_mapped_str": "jax.vmap(pool, (0, None, 0))(X23, 2, 'ab')",
    "vmap_mapped_jax_array": "jax.vmap(pool, (0, None, 0))(X23, 2, AsArray())",
    "vmap_unmapped_jax_array": "jax.vmap(pool, (0, None, None))(X23, 2, AsArray())",
    "wrapped_is_fun": "' '.join(str(getattr(t(total), '__wrapped__', None) is total) "
                      "for t in TRANSFORMS)",
    "hessian_wrapped_twice": "str(jax.hessian(total).__wrapped__.__wrapped__ is total)",
    "wrapped_names": "' '.join(t(total).__name__ for t in TRANSFORMS)",
    "odd_name_wrapped": "' '.join(str(hasattr(t(Odd()), '__wrapped__')) for t in TRANSFORMS)",
    "odd_name_vmap": "jax.vmap(Odd())(X23)",
    "odd_name_grad": "jax.grad(Odd())(X23)",
    "odd_name_jacrev_jit": "jax.jit(jax.jacrev(Odd()))(X23[0])",
    "odd_name_checkpoint_grad": "jax.grad(jax.checkpoint(Odd()))(X23[1])",
    "closure_value": "h(1.0, 2.0)",
    "closure_grad_x": "jax.grad(h)(1.0, 2.0)",
    "closure_grad_y": "jax.grad(h, argnums=1)(1.0, 2.0)",
    "closure_vmap_grad": "jax.vmap(jax.grad(h, argnums=(0, 1)))(X, Y)",
    "closure_jit_vmap": "jax.jit(jax.vmap(h))(X, Y)",
    "closure_jvp": "jax.jvp(h, (1.0, 2.0), (1.0, 0.0))",
    "const_value": "k(jnp.array([1.0, 4.0]))",
    "const_grad": "jax.grad(lambda x: k(x).sum())(jnp.array([1.0, 4.0]))",
    "const_jacfwd_jit": "jax.jacfwd(jax.jit(k))(jnp.array([1.0, 4.0]))",
    "const_vmap_jacrev": "jax.vmap(jax.jacrev(k))(jnp.stack([X[:2], Y[:2]]))",
    "lowered_cost_analysis": "jax.jit(lambda x, y: jnp.sin(x @ y) + 1).lower("
                             "jnp.ones((4, 5)), jnp.ones((5, 3))).cost_analysis()",
    "array_like_pytree_jit": "jax.jit(lambda b: jnp.sin(b) * 2)(Boxed(jnp.float32(1.0)))",
    "array_like_pytree_promote": "jax.jit(lambda b: jnp.add(b, 1))(Boxed(jnp.arange(3)))",
    "array_like_pytree_grad": "jax.grad(lambda b: jnp.sum(jnp.sin(b)))("
                              "Boxed(jnp.arange(3.0))).value",
    "custom_vjp_ct_seed": "(jax.grad(lambda x: cv(x)[0])(1.0), ct_seen[-1])[1]",
    "custom_vjp_ct_array_seed": "(jax.grad(lambda x: cv(x)[1])(jnp.float32(2.0)), "
                                "ct_seen[-1])[1]",
    "custom_vjp_ct_value": "jax.grad(lambda x: cv(x)[0] * 3.0)(0.5)",
    "scan_traced_once": "count_traces(lambda b, c, i: jax.lax.scan(b, 0.0, jnp.arange(3.0)))",
    "while_traced_once": "count_traces(lambda b, c, i: jax.lax.while_loop(below, c, 0.0))",
    "cond_traced_once": "count_traces(lambda b, c, i: jax.lax.cond(True, c, c, 1.0))",
    "scan_same_step_types": "count_traces(lambda b, c, i: jax.lax.scan(b, 0.0, "
                            "jnp.arange(3.0 + i)))",
    "scan_new_types_retraced": "count_traces(lambda b, c, i: jax.lax.scan(b, jnp.zeros(i + 1), "
                               "jnp.arange(3.0)))",
    "custom_jvp_default_nondiff": "(dflt(1.0, 2.0), jax.grad(dflt)(1.0, 2.0), "
                                  "jax.grad(dflt)(1.0, 2.0, 3.0, 1.0))",
    "custom_vjp_default_nondiff": "(power(2.0), jax.grad(power)(2.0), jax.grad(power)(2.0, 2), "
                                  "jax.grad(lambda x: power(x, n=2))(2.0))",
    "custom_vjp_bwd_on_zero_cts": "jax.grad(lambda x: blocked(seven(x)).sum() + x.sum())("
                                  "jnp.ones(2))",
    "custom_vjp_bwd_on_zero_cts_jit": "jax.jit(jax.grad(lambda x: blocked(seven(x)).sum() + "
                                      "x.sum()))(jnp.ones(2))",
    "custom_vjp_bwd_on_zero_product": "jax.grad(lambda x: (seven(x) * 0).sum())(jnp.ones(2))",
    "custom_vjp_unused_output": "jax.grad(lambda x: (seven(x), x.sum())[1])(jnp.ones(2))",
    "custom_vjp_stopped_output": "jax.grad(lambda x: jax.lax.stop_gradient(seven(x)).sum() + "
                                 "x.sum())(jnp.ones(2))",
    "vjp_wrt_key": "(lambda g: (g[0], str(g[1].dtype), g[1].shape))(jax.vjp(noisy, "
                   "jnp.ones(3), jax.random.key(0))[1](jnp.ones(3)))",
    "grad_wrt_key": "str(jax.grad(lambda x, k: noisy(x, k).sum(), argnums=(0, 1), "
                    "allow_int=True)(jnp.ones(3), jax.random.key(0))[1].dtype)",
    "jit_static_argnums_and_argnames": "jax.jit(lifted, static_argnums=(0,), static_argnames="
                                       "['b'])('fp', {'p': jnp.ones(2)}, {'r': jnp.ones(1)}, "
                                       "jnp.arange(2.0), b='hi')",
    "jit_static_argnames_only": "jax.jit(lambda x, n: x * n, static_argnames=['n'])("
                                "jnp.ones(2), 3)",
    "scan_cached_value": "(lambda out: (jax.lax.scan(out, 0.0, jnp.arange(3.0)), jax.lax.scan("
                         "out, 1.0, jnp.arange(3.0) * 2)))(lambda c, x: (c + x, x * 2))",
}

test_matches_jax, test_every_case_recorded, test_records_match_live_jax = recorded.tests(
    "ecosystem_hooks", PRELUDE, CASES, known={}, every=3)


def test_import_jax_lib_under_the_takeover():
    """``import jax.lib`` finds xjit's module, which ``import jax`` also binds."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "core"))
    env.pop("XJIT_NO_JAX_TAKEOVER", None)
    code = ("import xjit; xjit.install_as_jax()\n"
            "import sys, jax, jax.lib, jaxlib\n"
            "from jax.lib import __version__ as v\n"
            "print(sys.modules['jax.lib'] is sys.modules['xjit.lib'] is jax.lib, "
            "v == jaxlib.__version__)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"]


if __name__ == "__main__":
    written = recorded.record("ecosystem_hooks", PRELUDE, CASES)
    print(f"ecosystem_hooks: {len(written)} cases ({sum('error' in r for r in written.values())} "
          "raise in JAX)")
