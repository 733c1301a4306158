"""Every word lnlib says, looked up by a stable key in the catalogue of the chosen language.

The catalogues are gettext PO files, one per domain and language: `lnlib/locale/<lang>/LC_MESSAGES/<domain>.po`
(the source a translator edits), compiled to the `.mo` next to it that this module reads with the standard
library's `gettext` (`python -m tools.messages` compiles them; a test checks they are current). A key is
"<domain>.<name>" ("feedback.sign_flipped"): its domain is its first part, so each domain's catalogue is read only
when one of its words is first needed. A message's placeholders are named, `{atol}`, filled by `str.format`;
numbers are written by the caller (`grading.show_number`, `labels.number`) before they are handed in. A message
with plural forms is asked for with `count=` and gettext picks the form of the language.

The language: `set_language("en")`, else the environment variable `LNLIB_LANG` (read at the first message; "zh",
"en", also "en_US.UTF-8"), else "zh". `lazy(key, **fields)` is a message looked up when it is shown, for words built
before the language is chosen (an exercise's mistakes are defined at import); `Words` is a table of them that reads
as a dict. A template, once read, is kept: a word costs one dict lookup (about 0.2 µs).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

LANGUAGES = ("zh", "en")
"""The languages every message exists in (a test checks both catalogues hold the same keys)."""

DEFAULT_LANGUAGE = "zh"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_chosen: str | None = None  # set_language's choice; None: LNLIB_LANG or the default
_from_env: str | None = None  # LNLIB_LANG, read at the first message
_catalogues: dict[tuple[str, str], object] = {}
_templates: dict[tuple[str, str], str] = {}  # (language, key) -> template: a word costs one dict lookup


def _code(value: str, source: str) -> str:
    code = value.strip().replace("-", "_").split(".")[0].split("_")[0].lower()
    if code not in LANGUAGES:
        raise ValueError(f"{source}: expected one of {', '.join(LANGUAGES)}, got {value!r}")
    return code


def set_language(code: str) -> None:
    """Choose the language of every message from now on, for the whole kernel ("zh" or "en")."""
    global _chosen
    if not isinstance(code, str):
        raise TypeError(f"code: expected a language code such as 'zh' or 'en', got {type(code).__name__}")
    _chosen = _code(code, "code")


def language() -> str:
    """The language messages are shown in now: set_language's, else LNLIB_LANG's (read once), else "zh"."""
    global _from_env
    if _chosen is not None:
        return _chosen
    if _from_env is None:
        value = os.environ.get("LNLIB_LANG", "")
        _from_env = _code(value, "LNLIB_LANG") if value.strip() else DEFAULT_LANGUAGE
    return _from_env


def catalogue(lang: str, domain: str):
    """The compiled catalogue of one domain in one language (a `gettext.GNUTranslations`), read once."""
    found = _catalogues.get((lang, domain))
    if found is None:
        import gettext

        path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.mo"
        if not path.is_file():
            raise KeyError(f"no catalogue {domain!r} for language {lang!r} ({path.name} missing)")
        with path.open("rb") as f:
            found = gettext.GNUTranslations(f)
        found.add_fallback(_missing(gettext.NullTranslations, f"{lang}/LC_MESSAGES/{domain}.po"))
        _catalogues[(lang, domain)] = found
    return found


def _missing(base, where: str):
    """The fallback of every catalogue: a key the catalogue lacks is an error, never shown as the key itself."""

    class Missing(base):
        def gettext(self, message: str) -> str:
            raise KeyError(f"message {message!r} is not in {where}")

        def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
            return self.gettext(msgid1)

    return Missing()


def message(key: str, /, *, count: int | None = None, **fields) -> str:
    """The message `key` in the current language, its `{placeholders}` filled from `fields`.

    count: for a message with plural forms, the number that picks the form (also available as `{count}`).
    """
    lang = _chosen or _from_env or language()
    if count is None:
        template = _templates.get((lang, key))
        if template is None:
            template = _templates[(lang, key)] = catalogue(lang, key.partition(".")[0]).gettext(key)
    else:
        template = catalogue(lang, key.partition(".")[0]).ngettext(key, key, count)
        fields = {"count": count, **fields}
    return template.format(**fields) if fields else template


class Msg:
    """A message looked up when it is shown (`str(m)`, an f-string), in the language chosen by then."""

    __slots__ = ("key", "fields", "count")

    def __init__(self, key: str, fields: tuple[tuple[str, object], ...] = (), count: int | None = None):
        self.key, self.fields, self.count = key, fields, count

    def __str__(self) -> str:
        return message(self.key, count=self.count, **dict(self.fields))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"lazy({self.key!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Msg) and (self.key, self.fields, self.count) == (other.key, other.fields, other.count)

    def __hash__(self) -> int:
        return hash((self.key, self.fields, self.count))


class Words(Mapping):
    """A table code → message key that reads as a dict of words (`STAGE_LABELS["mean"]`), looked up when read."""

    __slots__ = ("keys_",)

    def __init__(self, keys: dict[str, str]):
        self.keys_ = keys

    def __getitem__(self, code: str) -> str:
        return message(self.keys_[code])

    def __iter__(self):
        return iter(self.keys_)

    def __len__(self) -> int:
        return len(self.keys_)

    def __repr__(self) -> str:
        return f"Words({dict(self)!r})"


def lazy(key: str, /, *, count: int | None = None, **fields) -> Msg:
    """The message `key` with its fields, to be looked up when it is shown (fields may be `Msg`s too)."""
    return Msg(key, tuple(fields.items()), count)
