"""Scheduler variants named on hadoop-bench's command line:
KEY@NAME=VALUE[@NAME=VALUE...] is scheduler KEY with those ResourceManager
settings (say spindle@spindle.am.max-share=0.25), so that settings are
compared in one run on one cluster.

Where a setting goes: the CapacityScheduler's own keys
(yarn.scheduler.capacity.*) to its capacity-scheduler.xml, which overrides
yarn-site.xml; allocation.ELEMENT (FairScheduler only) to a top-level
element of its allocation file (say fair@allocation.queueMaxAMShareDefault=0.25);
the rest to yarn-site.xml."""

import re

ALLOCATION = "allocation."


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
        if name.startswith(ALLOCATION) and not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", name[len(ALLOCATION):]):
            raise VariantError(f"bad allocation-file element in {p!r} of {spec!r}: "
                               "allocation.ELEMENT, ELEMENT a name like queueMaxAMShareDefault")
        if name.startswith(ALLOCATION) and re.search(r"[<>&]", value):
            raise VariantError(f"bad value {value!r} of {name} in {spec!r}: no <, > or &")
        settings[name] = value
    return base, settings


def split(settings):
    """(capacity-scheduler.xml keys, yarn-site.xml keys, FairScheduler
    allocation-file elements) of a variant's settings."""
    cs = {k: v for k, v in settings.items() if k.startswith("yarn.scheduler.capacity.")}
    alloc = {k[len(ALLOCATION):]: v for k, v in settings.items() if k.startswith(ALLOCATION)}
    yarn = {k: v for k, v in settings.items() if k not in cs and not k.startswith(ALLOCATION)}
    return cs, yarn, alloc


def allocation_file(elements):
    """A FairScheduler allocation file with these top-level elements."""
    return "<?xml version=\"1.0\"?>\n<allocations>\n" + "".join(
        f"  <{k}>{v}</{k}>\n" for k, v in elements.items()) + "</allocations>\n"


def label(base_label, settings):
    """The name a variant's rows carry: its scheduler's, with its settings."""
    return base_label + " [" + ", ".join(f"{k}={v}" for k, v in settings.items()) + "]"
