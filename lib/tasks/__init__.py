"""Task generators. Every task shares the shape of :class:`lib.tasks.base.Task`.

``REGISTRY`` maps a task's name to its class and to small valid arguments; the test
suite checks every registered task for determinism and argument validation, so a new
task is registered here when it lands.
"""
from .base import IGNORE, Batch, Task, Vocab, check_choice, check_int, make_generator
from .index_lookup import IndexLookup

REGISTRY: dict[str, tuple[type[Task], dict]] = {
    IndexLookup.name: (IndexLookup, {"n_symbols": 4, "length": 3}),
}

__all__ = ["IGNORE", "Batch", "Task", "Vocab", "check_choice", "check_int", "make_generator", "IndexLookup",
           "REGISTRY"]
