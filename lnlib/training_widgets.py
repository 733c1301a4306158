"""Notebook 15's explorer (`training_widgets.TrainingExplorer(grids)`): a facade over `lnlib.explorers.training`."""

from .explorers.training import Checkboxes, TrainingExplorer, divergence_text, summary_html

__all__ = ["Checkboxes", "TrainingExplorer", "divergence_text", "summary_html"]
