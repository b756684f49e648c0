"""``xjit.extend.backend``: the PJRT clients behind the devices."""
from xjit._src import xla_bridge
from xjit._src.xla_bridge import default_device as get_default_device  # noqa: F401
from xjit._src.xla_bridge import get_client as get_backend  # noqa: F401


def backends():
    """``{platform: client}`` for every platform this process has a client for."""
    return dict(xla_bridge.backends().clients)
