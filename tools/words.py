"""The words of the tools' page chrome (navigation cells, site, PDF) in each edition's language.

They are messages of lnlib's catalogue domain `site` (lnlib/locale/<lang>/LC_MESSAGES/site.po), like every other
word of the course: one home, a translator's PO file, and tests/test_messages.py checks that both languages hold
every key with the same placeholders and that no key is unused. The language is an argument, not the kernel-wide
choice of `lnlib.set_language`: one run of a tool writes both editions.
"""

from __future__ import annotations

from lnlib import i18n


def message(key: str, edition: str, /, **fields: object) -> str:
    """The message `key` in the language of `edition` ("zh" or "en"), its `{placeholders}` filled from `fields`."""
    template = i18n.catalogue(edition, key.partition(".")[0]).gettext(key)
    return template.format(**fields) if fields else template
