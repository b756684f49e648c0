"""``xjit.version``: the JAX release whose behaviour xjit follows."""
_version = "0.10.2"
__version__ = _version
