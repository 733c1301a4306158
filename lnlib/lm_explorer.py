"""Notebook 16's explorer (`lm_explorer.LMExplorer()`): a facade over `lnlib.explorers.lm`."""

from .explorers.lm import DEFAULT_TEXT, LMExplorer, read_sentence, sentence_table

__all__ = ["DEFAULT_TEXT", "LMExplorer", "read_sentence", "sentence_table"]
