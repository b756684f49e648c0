"""A panel as one self-contained ``text/html`` fragment: tabs in plain
HTML and CSS, no script, nothing loaded from elsewhere.

The tabs are radio buttons with labels; a CSS rule shows the section whose
radio is checked. Each fragment has its own id prefix (the radio group's
name and the style's scope), so any number of panels coexist on a page.
Where styles are stripped (GitHub, a sanitizing viewer) the radios and
labels stay inert and every section shows one under the other, each under
its own heading, so nothing is lost.
"""
from __future__ import annotations

import itertools
import os

from .render import esc

_counter = itertools.count(1)

# Looks, scoped to .xjit-panel; the tab mechanics are per panel (_tab_rules).
STYLE = """
.xjit-panel{font-family:var(--jp-ui-font-family,sans-serif);font-size:13px;
 border:1px solid #d0d0d0;border-radius:4px;padding:6px 8px;margin:4px 0;max-width:100%;
 color:#222;background:#fff}
.xjit-panel .xjit-title{font-weight:bold;margin-bottom:4px}
.xjit-jaxpr{font-family:monospace;font-size:12px;line-height:1.45;white-space:pre;
 overflow:auto;max-height:420px}
.xjit-jaxpr .p{color:#7a3e9d;font-weight:bold}.xjit-jaxpr .v{color:#1f5fa8}
.xjit-jaxpr .t{color:#777}.xjit-jaxpr .k{color:#a33}
.xjit-jaxpr .src{color:#999;float:right;padding-left:2em}
.xjit-jaxpr details>summary{cursor:pointer;color:#555;list-style:none}
.xjit-jaxpr details>summary::-webkit-details-marker{display:none}
.xjit-jaxpr .mk::before{content:'\\25B8'}.xjit-jaxpr details[open]>summary>.mk::before{content:'\\25BE'}
.xjit-jaxpr .more{color:#888;font-style:italic}
.xjit-panel table.xjit-lint td,.xjit-panel table.xjit-timing td,.xjit-panel table.xjit-history td,
.xjit-panel table.xjit-history th{padding:2px 8px;vertical-align:top;text-align:left;background:none}
.xjit-panel table.xjit-timing tr.warn td{color:#a33;font-weight:bold}
.xjit-panel table.xjit-history{margin-top:6px}.xjit-panel table.xjit-history caption{text-align:left;font-weight:bold}
.xjit-panel table.xjit-history td.sig{font-family:monospace}
.xjit-lint .kind{font-family:monospace;color:#a33;white-space:nowrap}
.xjit-lint .where,.xjit-timing td:first-child{white-space:nowrap}
.xjit-panel .xjit-chart{display:block;margin:4px 0}
.xjit-panel .xjit-defined{color:#555;margin-bottom:4px}
"""


def _tab_rules(uid: str, keys) -> str:
    """The tab mechanics, scoped to this panel's id. Scoped so that a page
    holding this style (a trusted output) never hides the sections of
    another panel whose radios a sanitizer removed (an untrusted output,
    where ids are renamed too): that one shows all its sections."""
    p = f"#{uid}"
    shown = ",".join(f"#{uid}-{k}:checked~section.xjit-tab-{k}" for k in keys)
    active = ",".join(f"#{uid}-{k}:checked+label" for k in keys)
    return (f"{p}>input.xjit-radio{{position:absolute;opacity:0;pointer-events:none}}"
            f"{p}>label.xjit-tablabel{{display:inline-block;padding:3px 12px;border:1px solid #ccc;"
            "border-bottom:none;border-radius:4px 4px 0 0;cursor:pointer;background:#f3f3f3;"
            "color:#333;margin-right:2px}"
            f"{p}>section.xjit-tab{{display:none;border-top:1px solid #ccc;padding-top:6px}}"
            f"{p}>section.xjit-tab>h4.xjit-heading{{display:none}}"
            f"{shown}{{display:block}}"
            f"{active}{{background:#fff;font-weight:bold;position:relative;top:1px}}")


def new_uid() -> str:
    """A page-unique id prefix: a counter plus process id and a random
    suffix, since outputs of several kernels may end up in one notebook."""
    return f"xjit-{os.getpid():x}-{next(_counter)}-{os.urandom(3).hex()}"


def panel_html(title: str, tabs, uid: str | None = None, selected: int = 0,
               title_attrs: str = "") -> str:
    """``tabs``: (name, html) pairs; the html is trusted markup built by
    ``render`` (user strings escaped there). ``title`` is plain text;
    ``title_attrs``, the function's ``render.source_attrs``."""
    uid = uid or new_uid()
    keys = [name.lower() for name, _ in tabs]
    radios, sections = [], []
    for i, ((name, body), key) in enumerate(zip(tabs, keys)):
        checked = " checked" if i == selected else ""
        radios.append(f'<input type="radio" class="xjit-radio" name="{uid}" id="{uid}-{key}"'
                      f'{checked}><label class="xjit-tablabel" for="{uid}-{key}">{esc(name)}</label>')
        sections.append(f'<section class="xjit-tab xjit-tab-{key}"><h4 class="xjit-heading">'
                        f"{esc(name)}</h4>{body}</section>")
    style = f"<style>{STYLE}{_tab_rules(uid, keys)}</style>"
    return (f'<div class="xjit-panel" id="{uid}">{style}'
            f'<div class="xjit-title"{title_attrs}>xjit: {esc(title)}</div>'
            + "".join(radios) + "".join(sections) + "</div>")
