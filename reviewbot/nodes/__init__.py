"""Review nodes: the model, the read boundary, the lifecycle and the fingerprint.

Pure core: imports only the standard library and pydantic.
"""

from reviewbot.nodes.boundary import BoundaryResult, Discarded, admit, read_boundary
from reviewbot.nodes.fingerprint import fingerprint
from reviewbot.nodes.lifecycle import Action, Transition, also_raised, apply
from reviewbot.nodes.model import Anchor, Dispute, Finding, Kind, Priority, ReviewNode, Status

__all__ = [
    "Action",
    "Anchor",
    "BoundaryResult",
    "Discarded",
    "Dispute",
    "Finding",
    "Kind",
    "Priority",
    "ReviewNode",
    "Status",
    "Transition",
    "admit",
    "also_raised",
    "apply",
    "fingerprint",
    "read_boundary",
]
