"""Bundled resources (datasets, later icons and stylesheets), found via importlib.resources."""
