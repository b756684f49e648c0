"""optax: Adam on a two-hidden-layer MLP regressing a smooth function, 200 steps."""
import jax
import jax.numpy as jnp
import optax

STEPS = 200


def init_mlp(key, sizes):
    params = []
    for k, (n_in, n_out) in zip(jax.random.split(key, len(sizes) - 1), zip(sizes[:-1], sizes[1:])):
        wk, bk = jax.random.split(k)
        w = jax.random.normal(wk, (n_in, n_out)) * jnp.sqrt(2.0 / n_in)
        b = 0.01 * jax.random.normal(bk, (n_out,))
        params.append({"w": w, "b": b})
    return params


def mlp(params, x):
    for layer in params[:-1]:
        x = jax.nn.gelu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    return jnp.mean(optax.losses.squared_error(mlp(params, x), y))


key = jax.random.key(0)
kx, kp = jax.random.split(key)
x = jax.random.uniform(kx, (128, 4), minval=-2.0, maxval=2.0)
y = jnp.stack([jnp.sin(x[:, 0]) * x[:, 1], jnp.cos(x[:, 2] + x[:, 3])], axis=1)
params = init_mlp(kp, [4, 32, 32, 2])

schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-2, 20, STEPS)
tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(schedule))
opt_state = tx.init(params)


@jax.jit
def step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss, optax.global_norm(grads)


losses, grad_norms = [], []
for i in range(STEPS):
    params, opt_state, loss, gnorm = step(params, opt_state, x, y)
    losses.append(float(loss))
    grad_norms.append(float(gnorm))

RESULTS = {
    "loss": losses[::20] + [losses[-1]],
    "grad_norm": grad_norms[::20] + [grad_norms[-1]],
    "param_norm": [float(optax.tree.norm(p)) for p in params],
    "final_loss": float(loss_fn(params, x, y)),
    "adam_count": int(opt_state[1][0].count),
}
