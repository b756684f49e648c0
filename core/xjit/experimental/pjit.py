"""``jax.experimental.pjit``: only the deprecated ``pjit``, which is
``jax.jit`` (asking for it warns, as in JAX 0.10.2)."""
import warnings as _warnings


def _pjit(fun, in_shardings=None, out_shardings=None, static_argnums=None,
          static_argnames=None, donate_argnums=None, donate_argnames=None, keep_unused=False,
          device=None, backend=None, inline=False, compiler_options=None):
    """`jax.experimental.pjit.pjit` has been deprecated. Please use `jax.jit`."""
    from xjit._src.pjit import jit
    kwargs = dict(static_argnums=static_argnums, static_argnames=static_argnames,
                  donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                  keep_unused=keep_unused, device=device, backend=backend, inline=inline,
                  compiler_options=compiler_options)
    if in_shardings is not None:
        kwargs["in_shardings"] = in_shardings
    if out_shardings is not None:
        kwargs["out_shardings"] = out_shardings
    return jit(fun, **kwargs)


def __getattr__(name):
    if name == "pjit":
        _warnings.warn("jax.experimental.pjit.pjit has been deprecated. Please use `jax.jit` "
                       "instead.", DeprecationWarning, stacklevel=2)
        return _pjit
    raise AttributeError(f"module 'jax.experimental.pjit' has no attribute {name!r}")
