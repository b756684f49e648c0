"""``xjit.ad_checkpoint``: rematerialisation and its policies."""
from xjit._src.ad_checkpoint import (  # noqa: F401
    Offloadable, Recompute, Saveable, checkpoint, checkpoint_name, checkpoint_policies,
    print_saved_residuals, remat)
