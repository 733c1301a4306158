"""Build lnlib's bundled Chinese font: a subset of Noto Sans CJK SC with every character a course figure can draw.

    python -m tools.make_font_subset            # writes lnlib/fonts/LNlibSansCJKSC-Regular.otf
    python -m tools.make_font_subset --check    # exit 1 if the stored font lacks a character the code can draw

The characters are collected automatically, so re-run this after adding a figure or a label:
- every string literal (including the constant parts of f-strings) in lnlib/**/*.py,
- every string literal in the code cells of notebooks/*.ipynb (titles and tokens passed to the plot functions),
- printable ASCII, the Greek alphabet, common maths symbols, super/subscripts and Chinese punctuation.
Characters the source font does not have (e.g. emoji) are listed and left to matplotlib's other fonts.

The source is the Simplified Chinese face of the system's Noto Sans CJK collection (Debian: fonts-noto-cjk). The
subset is renamed "LNlib Sans CJK SC": the SIL Open Font License (lnlib/fonts/OFL.txt) lets a modified font be shipped
with software, under a name other than the Reserved Font Name ("Source"); the subset also does not clash with a full
Noto Sans CJK SC a machine may have installed. Needs fonttools (pinned in binder/requirements.txt).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import unicodedata
import warnings
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
SOURCE_FAMILY = "Noto Sans CJK SC"
OUT = ROOT / "lnlib" / "fonts" / "LNlibSansCJKSC-Regular.otf"
FAMILY = "LNlib Sans CJK SC"
POSTSCRIPT = "LNlibSansCJKSC-Regular"

ASCII = "".join(chr(c) for c in range(0x20, 0x7F))
GREEK = (
    "".join(chr(c) for c in range(0x391, 0x3AA) if unicodedata.category(chr(c)) == "Lu")
    + "".join(chr(c) for c in range(0x3B1, 0x3CA))
    + "ϵϑϕϱς"
)
MATHS = "−×÷±∓√∛≈≠≡≤≥≪≫∞·⋅∙⊙⊗∑∏∫∂∇∈∉⊂∀∃→←↔⇒⇐⇔↑↓°′″‰∝∼≃ℝ∅∥⊤ᵀ•…–—‖|"
SCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ᵢⱼₖₙ"
PUNCTUATION = "，。、：；！？（）【】《》〈〉「」『』〔〕［］｛｝～·“”‘’　％＋－＝／＜＞"
EXTRA = ASCII + GREEK + MATHS + SCRIPTS + PUNCTUATION


def _literals(tree: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


# lnlib modules whose text is only printed (the exercise feedback in a cell's output, shown in the browser's own
# font), never drawn in a figure: their characters need not be in the bundled font.
PRINTED_ONLY = frozenset(
    {"exercises.py", "grading.py", "code_exercises.py", "code_grading.py", "hints.py", "_record.py"}
)


def lnlib_strings(root: Path = ROOT) -> list[str]:
    """Every string literal in the lnlib package (labels, titles, tick names, tokens, f-string parts), except the
    modules whose text is only printed (`PRINTED_ONLY`)."""
    out = []
    for path in sorted((root / "lnlib").rglob("*.py")):
        if path.name in PRINTED_ONLY and path.parent.name == "lnlib":
            continue
        out += _literals(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return out + catalogue_strings()


PRINTED_DOMAINS = frozenset({"feedback", "exercises", "code", "codex", "grading", "site"})
"""Message domains (lnlib/locale) whose text is only printed, never drawn in a figure (the words of PRINTED_ONLY)."""


def catalogue_strings() -> list[str]:
    """Every message of the catalogues a figure can draw (all languages; msgstr and plural forms)."""
    from tools.messages import LANGUAGES, domains, read

    out = []
    for domain in domains():
        if domain in PRINTED_DOMAINS:
            continue
        for lang in LANGUAGES:
            for msg in read(lang, domain):
                if msg.id:
                    out += [msg.string] if isinstance(msg.string, str) else list(msg.string)
    return out


def notebook_strings(root: Path = ROOT) -> list[str]:
    """Every string literal in the notebooks' code cells: plain Python, and the Python body of a `%%reveal` or
    `%%code_exercise` cell (an `%%answer` body is typed text, not code; other cells that do not parse are skipped)."""
    out = []
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            if source.startswith(PYTHON_MAGICS):
                source = source.split("\n", 1)[1] if "\n" in source else ""
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SyntaxWarning)  # e.g. an %%answer body such as 5e
                    out += _literals(ast.parse(source))
            except SyntaxError:
                continue
    return out


PYTHON_MAGICS = ("%%reveal", "%%code_exercise")  # cell magics whose body is Python


def wanted_characters(root: Path = ROOT) -> set[str]:
    """The characters a course figure can draw (control characters dropped)."""
    text = "".join(lnlib_strings(root)) + "".join(notebook_strings(root)) + EXTRA
    return {c for c in text if unicodedata.category(c)[0] not in "CZ" or c in (" ", "\u3000")}


def source_font(path: Path = SOURCE) -> tuple[TTFont, int]:
    """The Simplified Chinese face of the Noto Sans CJK collection and its index in the collection."""
    for index, font in enumerate(TTCollection(str(path)).fonts):
        if font["name"].getDebugName(1) == SOURCE_FAMILY:
            return font, index
    raise SystemExit(f"{path} has no face named {SOURCE_FAMILY!r}")


def rename(font: TTFont) -> None:
    """Give the subset its own family name (OFL: no Reserved Font Name on a modified version)."""
    names = font["name"]
    version = names.getDebugName(5) or ""
    for record in list(names.names):
        if record.nameID in (16, 17, 21, 22):  # typographic family/subfamily: drop, the legacy ones say it all
            names.removeNames(nameID=record.nameID)
    for name_id, value in {
        1: FAMILY,
        2: "Regular",
        3: f"{POSTSCRIPT};lnlib subset of Noto Sans CJK SC {version}",
        4: f"{FAMILY} Regular",
        6: POSTSCRIPT,
    }.items():
        names.removeNames(nameID=name_id)
        names.setName(value, name_id, 3, 1, 0x409)
        names.setName(value, name_id, 1, 0, 0)
    if "CFF " in font:
        cff = font["CFF "].cff
        top = cff[cff.fontNames[0]]
        cff.fontNames = [POSTSCRIPT]
        top.FullName, top.FamilyName = f"{FAMILY} Regular", FAMILY
        if hasattr(top, "CIDFontName"):
            top.CIDFontName = POSTSCRIPT


def build(out: Path = OUT, source: Path = SOURCE) -> tuple[int, list[str]]:
    """Write the subset; return its size in bytes and the wanted characters the source font lacks."""
    font, index = source_font(source)
    cmap = font.getBestCmap()
    wanted = wanted_characters()
    present = sorted(c for c in wanted if ord(c) in cmap)
    missing = sorted(c for c in wanted if ord(c) not in cmap)
    options = subset.Options()
    options.font_number = index
    options.hinting = False  # the figures are rendered at screen sizes by FreeType's autohinter anyway
    options.desubroutinize = True  # smaller once zipped (wheels, images)
    options.layout_features = []  # matplotlib does no OpenType shaping: one glyph per character is all it uses
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    options.name_languages = [0x409, 0]
    font = subset.load_font(str(source), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in present])
    subsetter.subset(font)
    rename(font)
    out.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(out))
    return out.stat().st_size, missing


def check(path: Path = OUT) -> list[str]:
    """The wanted characters that the stored subset lacks but the source font (if installed) has."""
    have = TTFont(str(path)).getBestCmap()
    lacking = [c for c in sorted(wanted_characters()) if ord(c) not in have]
    if SOURCE.exists():
        source_cmap = source_font()[0].getBestCmap()
        lacking = [c for c in lacking if ord(c) in source_cmap]
    return lacking


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report characters the stored font lacks")
    args = parser.parse_args(argv)
    if args.check:
        lacking = check()
        if lacking:
            print(f"{OUT.relative_to(ROOT)} lacks {len(lacking)} characters: {''.join(lacking)}")
            print("re-run: python -m tools.make_font_subset")
            return 1
        print(f"{OUT.relative_to(ROOT)} has every character the figures can draw")
        return 0
    if not SOURCE.exists():
        print(f"needs {SOURCE} (Debian/Ubuntu: apt-get install fonts-noto-cjk)", file=sys.stderr)
        return 1
    size, missing = build()
    print(f"wrote {OUT.relative_to(ROOT)}: {size / 1024:.1f} KiB, {len(TTFont(str(OUT)).getBestCmap())} characters")
    if missing:
        print(f"not in {SOURCE_FAMILY} (left to matplotlib's other fonts): {''.join(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
