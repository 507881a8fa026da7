"""Which chart documents go with a record and which must go nowhere, read from their status.

A document goes out only when it is final and signed and is the patient's own; among several,
the current one is the highest version, then the latest date. Drafts, superseded versions,
unsigned documents and another patient's documents filed under the record are decoys.
"""

from __future__ import annotations

from endstate.envs.world import Document, World
from endstate.rules import dme


def filed_under(world: World, record: str) -> list[Document]:
    """Every chart document related to the record, in id order."""
    return sorted((d for d in world.documents if d.related_id == record), key=lambda d: d.id)


def usable(doc: Document, mrn: str) -> bool:
    return doc.mrn == mrn and doc.status == "final" and doc.signed


def current(docs: list[Document], kind: str, mrn: str) -> Document | None:
    """The current final signed document of a kind, if the chart holds one."""
    found = [d for d in docs if d.kind == kind and usable(d, mrn)]
    return max(found, key=lambda d: (d.version, d.date, d.id)) if found else None


def decoys(docs: list[Document], mrn: str) -> list[str]:
    """Ids of the documents that must not go anywhere: drafts, superseded or unsigned
    versions, and documents of another patient filed under the record."""
    return [d.id for d in docs if not usable(d, mrn)]


def face_to_face_current(note: Document, ordered: str) -> bool:
    """Whether a face-to-face note falls within the window before the written order
    (rules.dme: the six calendar months up to the order)."""
    return dme.face_to_face_in_window(note.date, ordered)
