"""Scheduler variants named on hadoop-bench's command line:
KEY@NAME=VALUE[@NAME=VALUE...] is scheduler KEY with those ResourceManager
settings (say spindle@spindle.am.max-share=0.25), so that settings are
compared in one run on one cluster."""


class VariantError(ValueError):
    pass


def parse(spec, known):
    """(base key, {name: value}) of `spec`; VariantError naming what is wrong."""
    base, *pairs = spec.split("@")
    if base not in known:
        raise VariantError(f"unknown scheduler {base!r} in {spec!r}; known: {', '.join(known)}")
    if not pairs:
        raise VariantError(f"no setting in {spec!r}: KEY@NAME=VALUE")
    settings = {}
    for p in pairs:
        name, eq, value = (x.strip() for x in p.partition("="))
        if not eq or not name or not value or any(c.isspace() for c in name):
            raise VariantError(f"bad setting {p!r} in {spec!r}: NAME=VALUE")
        if name in settings:
            raise VariantError(f"{name} set twice in {spec!r}")
        settings[name] = value
    return base, settings


def label(base_label, settings):
    """The name a variant's rows carry: its scheduler's, with its settings."""
    return base_label + " [" + ", ".join(f"{k}={v}" for k, v in settings.items()) + "]"
