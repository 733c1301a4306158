"""Real-browser tests (issue 6); a package so its conftest never shadows tests/conftest.py."""
