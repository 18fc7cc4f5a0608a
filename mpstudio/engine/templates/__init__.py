"""Model templates. The registry is light; each builder imports Keras when used."""

from mpstudio.engine.templates.registry import (
    TemplateEntry,
    build_model,
    register_template,
    template_entry,
    template_names,
)

__all__ = [
    "TemplateEntry",
    "build_model",
    "register_template",
    "template_entry",
    "template_names",
]
