"""``xjit.version``: the JAX release whose behaviour xjit follows."""
_version = "0.10.2"
__version__ = _version
__version_info__ = tuple(int(p) for p in _version.split("."))
