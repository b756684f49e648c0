"""equinox: an eqx.nn.MLP trained with filter_jit / filter_value_and_grad and optax."""
import jax
import jax.numpy as jnp
import equinox as eqx
import optax

STEPS = 100

key = jax.random.key(3)
kx, kmodel = jax.random.split(key)
x = jax.random.uniform(kx, (96, 3), minval=-1.0, maxval=1.0)
y = jnp.sum(jnp.sin(3.0 * x), axis=1, keepdims=True)

model = eqx.nn.MLP(in_size=3, out_size=1, width_size=16, depth=2,
                   activation=jax.nn.softplus, key=kmodel)
optim = optax.adam(1e-2)
opt_state = optim.init(eqx.filter(model, eqx.is_array))


@eqx.filter_value_and_grad
def compute_loss(model, x, y):
    pred = jax.vmap(model)(x)
    return jnp.mean((pred - y) ** 2)


@eqx.filter_jit
def make_step(model, opt_state, x, y):
    loss, grads = compute_loss(model, x, y)
    updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), opt_state, loss


losses = []
for _ in range(STEPS):
    model, opt_state, loss = make_step(model, opt_state, x, y)
    losses.append(float(loss))

leaves = jax.tree_util.tree_leaves(eqx.filter(model, eqx.is_array))
RESULTS = {
    "loss": losses[::10] + [losses[-1]],
    "param_norm": [float(jnp.linalg.norm(v)) for v in leaves],
    "prediction": [float(v) for v in jax.vmap(model)(x[:4]).ravel()],
}
