"""The Chinese font lnlib ships: a subset of Noto Sans CJK SC (SIL Open Font License, see OFL.txt beside it) with
every character a course figure draws, so figures look the same on every machine, with or without a system CJK font.

Importing this module registers the font with matplotlib's font manager (lnlib.plots imports it). The subset is made
by tools/make_font_subset.py; re-run that after adding labels.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib import font_manager

FAMILY = "LNlib Sans CJK SC"
FONT_FILE = Path(__file__).with_name("LNlibSansCJKSC-Regular.otf")
LICENSE_FILE = Path(__file__).with_name("OFL.txt")


def register_font() -> str | None:
    """Add the bundled font to matplotlib's font manager (once); its family name, or None if the file is missing."""
    if any(entry.name == FAMILY for entry in font_manager.fontManager.ttflist):
        return FAMILY
    if not FONT_FILE.is_file():
        return None
    font_manager.fontManager.addfont(str(FONT_FILE))
    return FAMILY


register_font()
