"""lnlib's message catalogues: write every PO file in one canonical form and compile it to the .mo lnlib reads.

    python -m tools.messages            # rewrite lnlib/locale/*/LC_MESSAGES/*.po canonically, compile the .mo files
    python -m tools.messages --check    # exit 1 if a catalogue is inconsistent, not canonical or not compiled

The Chinese catalogue (`zh`) is the source; every other language's PO carries each message's Chinese text as an
extracted comment (`#. zh: …`), refreshed here, so that a translator who sees only keys still sees what to
translate. Checks (`problems`, also run by tests/test_messages.py): every key in every language, the same named
placeholders and the same plural structure in each, the header's language and plural rule, no empty message.
Reading and writing PO goes through Babel (a JupyterLab dependency, pinned in binder/requirements.txt); lnlib itself
reads the compiled .mo with the standard library.
"""

from __future__ import annotations

import argparse
import io
import string
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from lnlib.i18n import DEFAULT_LANGUAGE, LANGUAGES, LOCALE_DIR

SOURCE = DEFAULT_LANGUAGE
PLURAL_FORMS = {"zh": "nplurals=1; plural=0;", "en": "nplurals=2; plural=(n != 1);"}
FIXED_DATE = datetime(2026, 12, 1, tzinfo=UTC)  # headers carry no clock: a rebuild is byte-identical


def po_path(lang: str, domain: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"


def domains() -> list[str]:
    """Every domain that has a catalogue in some language."""
    return sorted({p.stem for p in LOCALE_DIR.glob("*/LC_MESSAGES/*.po")})


def read(lang: str, domain: str) -> Catalog:
    with po_path(lang, domain).open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


def new_catalogue(lang: str, domain: str) -> Catalog:
    return Catalog(
        locale=lang,
        domain=domain,
        project="lnlib",
        version="0.1.0",
        creation_date=FIXED_DATE,
        revision_date=FIXED_DATE,
        last_translator="LayerNorm 手算",
        language_team=lang,
        fuzzy=False,
        msgid_bugs_address="-",
        header_comment=f"# lnlib's messages, domain {domain}, language {lang}: msgid is a key, msgstr the text.\n"
        "# Edit msgstr here, then run python -m tools.messages (docs/authoring.md, 'Words').",
    )


def canonical(catalogue: Catalog, lang: str, domain: str, source: Catalog | None) -> Catalog:
    """The catalogue with fixed headers, sorted by key, and (for a translation) each key's Chinese as a comment."""
    out = new_catalogue(lang, domain)
    for msg in sorted((m for m in catalogue if m.id), key=lambda m: m.id if isinstance(m.id, str) else m.id[0]):
        comments = []  # extracted comments are this tool's own: the Chinese of each key, made again every time
        if source is not None and msg.id in source:
            zh = source[msg.id].string
            comments = [f"zh: {zh if isinstance(zh, str) else zh[0]}"]
        out.add(msg.id, msg.string, auto_comments=comments, user_comments=msg.user_comments, flags=msg.flags)
    return out


def po_bytes(catalogue: Catalog) -> bytes:
    buf = io.BytesIO()
    write_po(buf, catalogue, width=0, sort_output=True)
    return buf.getvalue()


def mo_bytes(catalogue: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, catalogue)
    return buf.getvalue()


def placeholders(text: str) -> set[str]:
    """The named fields of a message template ({atol}, {count}), format specs included."""
    names = set()
    for _literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            if name == "" or name.isdigit():
                raise ValueError(f"positional placeholder in {text!r}: name every placeholder")
            names.add(f"{name}!{conversion or ''}:{spec or ''}")
    return names


def problems() -> list[str]:
    """Everything wrong with the catalogues, one line each; [] when they are consistent, canonical and compiled."""
    found = []
    for domain in domains():
        cats = {}
        for lang in LANGUAGES:
            if not po_path(lang, domain).is_file():
                found.append(f"{domain}: no catalogue for {lang}")
                continue
            cats[lang] = read(lang, domain)
        if SOURCE not in cats:
            continue
        source = cats[SOURCE]
        for lang, cat in cats.items():
            where = f"{lang}/{domain}.po"
            if cat.plural_forms != PLURAL_FORMS[lang]:
                found.append(f"{where}: Plural-Forms {cat.plural_forms!r}, expected {PLURAL_FORMS[lang]!r}")
            ids = {m.id if isinstance(m.id, str) else m.id[0] for m in cat if m.id}
            src = {m.id if isinstance(m.id, str) else m.id[0] for m in source if m.id}
            found += [f"{where}: {k} missing (it is in {SOURCE})" for k in sorted(src - ids)]
            found += [f"{where}: {k} is not in {SOURCE}" for k in sorted(ids - src)]
            for msg in cat:
                if not msg.id:
                    continue
                key = msg.id if isinstance(msg.id, str) else msg.id[0]
                if not key.startswith(f"{domain}."):
                    found.append(f"{where}: {key} does not start with its domain '{domain}.'")
                texts = [msg.string] if isinstance(msg.string, str) else list(msg.string)
                if not all(texts):
                    found.append(f"{where}: {key} has an empty translation")
                    continue
                if key not in source or lang == SOURCE:
                    continue
                other = source[key]
                if isinstance(other.id, str) != isinstance(msg.id, str):
                    found.append(f"{where}: {key} has plural forms in one language only")
                    continue
                zh = [other.string] if isinstance(other.string, str) else list(other.string)
                want = set().union(*map(placeholders, zh))
                for text in texts:
                    if placeholders(text) != want:
                        found.append(f"{where}: {key} placeholders {sorted(placeholders(text))} ≠ {sorted(want)}")
        for lang, cat in cats.items():
            path = po_path(lang, domain)
            tidy = canonical(cat, lang, domain, None if lang == SOURCE else source)
            if path.read_bytes() != po_bytes(tidy):
                found.append(f"{lang}/{domain}.po is not in canonical form (run python -m tools.messages)")
            mo = path.with_suffix(".mo")
            if not mo.is_file() or mo.read_bytes() != mo_bytes(tidy):
                found.append(f"{lang}/{domain}.mo is not compiled from its .po (run python -m tools.messages)")
    return found


def write_all() -> None:
    """Rewrite every catalogue canonically and compile it."""
    for domain in domains():
        source = read(SOURCE, domain)
        for lang in LANGUAGES:
            path = po_path(lang, domain)
            cat = read(lang, domain) if path.is_file() else new_catalogue(lang, domain)
            tidy = canonical(cat, lang, domain, None if lang == SOURCE else source)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(po_bytes(tidy))
            path.with_suffix(".mo").write_bytes(mo_bytes(tidy))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.messages", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 on any problem")
    args = parser.parse_args(argv)
    if not args.check:
        write_all()
    found = problems()
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
