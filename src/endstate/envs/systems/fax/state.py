"""The fax service's slice of the state document (docs/state-document.md)."""

from __future__ import annotations

from typing import Any

from endstate.envs.suite import statedoc
from endstate.envs.suite.runtime import Episode
from endstate.envs.world import World


def fax_state(world: World, episode: Episode, events: list[dict[str, Any]]) -> dict[str, Any]:
    db = episode.db
    out = []
    for f in db.rows("SELECT * FROM faxes ORDER BY seq"):
        docs = db.rows(
            "SELECT d.id, d.mrn, d.kind, d.title, d.date, d.status, d.signed, d.version "
            "FROM fax_attachments a JOIN documents d ON d.id = a.document_id "
            "WHERE a.fax_id = ? ORDER BY a.seq",
            (f["id"],),
        )
        uploads = statedoc.attachments(episode, "fax", f["id"])
        out.append(
            {
                "id": f["id"],
                "recipient": f["recipient"],
                "fax_number": f["fax_number"],
                "cover_note": f["cover_note"],
                "patient_mrn": f["patient_mrn"],
                "pages": f["pages"],
                "status": f["status"],
                "sent_at": f["created_at"],
                "attachments": [dict(d) | {"signed": bool(d["signed"])} for d in docs],
                "document_ids": [d["id"] for d in docs],
                "uploads": uploads,
                "all_document_ids": statedoc.unique(
                    [d["id"] for d in docs]
                    + [u["document_id"] for u in uploads if u["document_id"] is not None]
                ),
            }
        )
    return {"transmissions": out}
