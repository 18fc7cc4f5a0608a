"""Everything that is not code: the bundled digits dataset, the translations, the app icon
and the desktop entry. Installed as ``mpstudio.resources`` (pyproject: package-dir); code
finds it through ``importlib.resources.files("mpstudio.resources")``."""
