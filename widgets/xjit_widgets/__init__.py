"""Notebook views of xjit.inspect data: one panel per jitted function with
Jaxpr / Lint / Timing tabs (and Sharding, Profile), displayed as self-contained HTML (CSS tabs,
inline SVG chart, no script) with a plain-text twin."""
from .panel import FunctionPanel, PanelData, Timing  # noqa: F401
from .profile import profile_html, profile_text  # noqa: F401
from .render import jaxpr_html, lint_html, timing_html  # noqa: F401
from .sharding import sharding_html, sharding_text  # noqa: F401
from .static import panel_html  # noqa: F401
