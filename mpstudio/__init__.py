"""mpstudio: a workbench for mixed-precision training with TensorFlow/Keras."""

__version__ = "0.1.0"
# The desktop entry's and AppStream's id (reverse DNS of the project's home); Qt's
# desktopFileName, so a desktop groups the window under the entry's icon.
APP_ID = "io.github.mpstudio.mpstudio"


def _resources_from_source_tree() -> None:
    """Run from a source tree (the repository root on ``sys.path``, no install), make
    ``mpstudio.resources`` the repository's top-level ``resources/`` folder, as a wheel or
    an editable install maps it (pyproject: ``package-dir``), so that
    ``importlib.resources.files("mpstudio.resources")`` finds the same files everywhere."""
    import sys
    from importlib.util import module_from_spec, spec_from_file_location
    from pathlib import Path

    here = Path(__file__).parent
    top = here.parent / "resources" / "__init__.py"
    # installed (wheel, frozen): the package is there. Not just the folder: a checkout
    # from before resources/ moved up keeps an ignored mpstudio/resources/__pycache__/.
    if (here / "resources" / "__init__.py").is_file() or not top.is_file():
        return
    spec = spec_from_file_location("mpstudio.resources", top,
                                   submodule_search_locations=[str(top.parent)])
    assert spec is not None and spec.loader is not None  # a .py file always has a loader
    module = module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    globals()["resources"] = module  # as an import would (this module's attribute)


_resources_from_source_tree()
del _resources_from_source_tree
