"""What the tests share: helpers that build fakes (machines, history records, data
files, crafted layers and model files), drive the window, and check shown texts.

Importable as ``support`` because tests/ is on sys.path (``pythonpath`` in pyproject's
[tool.pytest.ini_options]). A test module never imports another test module: a helper
two test files need lives here, so any test file runs alone."""
