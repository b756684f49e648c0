"""chex: dataclass train state; shape/type/tree asserts inside jit, value asserts
under chexify."""
import jax
import jax.numpy as jnp
import chex

STEPS = 50


@chex.dataclass
class Params:
    w: chex.Array
    b: chex.Array


@chex.dataclass
class TrainState:
    params: Params
    momentum: Params
    step: chex.Array


def loss_fn(params: Params, x, y):
    chex.assert_rank(x, 2)
    chex.assert_equal_shape([params.w[:, 0], x[0]])
    pred = x @ params.w + params.b
    chex.assert_shape(pred, (x.shape[0], 1))
    return jnp.mean((pred - y) ** 2)


@chex.chexify
@jax.jit
def update(state: TrainState, x, y) -> TrainState:
    chex.assert_type(state.step, int)
    chex.assert_trees_all_equal_shapes(state.params, state.momentum)
    loss, grads = jax.value_and_grad(loss_fn)(state.params, x, y)
    chex.assert_trees_all_equal_structs(grads, state.params)
    momentum = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g, state.momentum, grads)
    params = jax.tree_util.tree_map(lambda p, m: p - 0.05 * m, state.params, momentum)
    chex.assert_tree_all_finite(params)  # a value assert: checked by chexify
    return TrainState(params=params, momentum=momentum, step=state.step + 1), loss


key = jax.random.key(11)
kx, kw = jax.random.split(key)
x = jax.random.normal(kx, (40, 5))
y = x @ jax.random.normal(kw, (5, 1)) + 0.3
zeros = Params(w=jnp.zeros((5, 1)), b=jnp.zeros((1,)))
state = TrainState(params=zeros, momentum=jax.tree_util.tree_map(jnp.zeros_like, zeros),
                   step=jnp.array(0))

losses = []
for _ in range(STEPS):
    state, loss = update(state, x, y)
    losses.append(float(loss))

# A failing assert inside jit raises at trace time, as chex documents.
try:
    jax.jit(lambda p: chex.assert_shape(p.w, (3, 3)))(state.params)
    shape_error = None
except AssertionError as e:
    shape_error = str(e).splitlines()[0]

# A failing value assert under chexify raises once the computation has run.
try:
    update(state.replace(params=Params(w=state.params.w.at[0, 0].set(jnp.nan), b=state.params.b)), x, y)
    update.wait_checks()
    finite_error = None
except AssertionError as e:
    finite_error = str(e).split(": Tree")[0]  # the rest names array reprs and paths
chex.block_until_chexify_assertions_complete()

replaced = state.replace(step=jnp.array(100))
RESULTS = {
    "loss": losses[::10] + [losses[-1]],
    "param_norm": {"w": float(jnp.linalg.norm(state.params.w)), "b": float(state.params.b[0])},
    "step": int(state.step),
    "replaced_step": int(replaced.step),
    "keys": list(state.params.keys()),
    "tree_leaves": len(jax.tree_util.tree_leaves(state)),
    "shape_error": shape_error,
    "finite_error": finite_error,
}
