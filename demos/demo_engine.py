"""A short tour of the engine: jit, a printed jaxpr, the compile stages and a
split timing. Run with ``bash scripts/main.sh --headless`` (or directly)."""
import xjit as jax
import xjit.inspect
import xjit.numpy as jnp


def predict(w, b, x):
    return jnp.tanh(x @ w + b)


def loss(w, b, x, y):
    return jnp.mean((predict(w, b, x) - y) ** 2)


def main():
    x = jnp.linspace(-1, 1, 12).reshape(4, 3)
    w = jnp.ones((3, 2)) * 0.5
    b = jnp.zeros(2)
    y = jnp.ones((4, 2))

    print("jaxpr of loss:")
    print(jax.make_jaxpr(loss)(w, b, x, y))

    fast_loss = jax.jit(loss)
    print("\nloss =", fast_loss(w, b, x, y))

    lowered = fast_loss.lower(w, b, x, y)
    print("\nStableHLO (first lines):")
    print("\n".join(lowered.as_text().splitlines()[:6]))
    compiled = lowered.compile()
    print("\nXLA cost analysis: flops =", (compiled.cost_analysis() or {}).get("flops"))

    prof = xjit.inspect.profile(loss, w, b, x, y, repeat=20)
    print("\nsplit timing of one call (ms):")
    for phase in ("trace_s", "lower_s", "compile_s", "transfer_in_s", "run_s", "transfer_out_s"):
        print(f"  {phase[:-2]:<13}{getattr(prof, phase) * 1e3:9.3f}")


if __name__ == "__main__":
    main()
