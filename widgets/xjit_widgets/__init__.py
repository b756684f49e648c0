"""Notebook views of xjit.inspect data (ipywidgets + plotly), each with
text/plain and text/html fallbacks."""
from .panel import FunctionPanel, PanelData, Timing  # noqa: F401
from .render import jaxpr_html, lint_html, timing_html  # noqa: F401
