"""The systems endstate ships — the EHR, two payer portals, the fax service, the patient
portal and the scheduling service — each a folder under `envs/systems/`, registered like any
plug-in's, in the order of the state document."""

from __future__ import annotations

from endstate.envs.suite.registry import register_system
from endstate.envs.systems import ehr, fax, patient_portal, payer_a, payer_b, scheduling

for _system in (
    ehr.SYSTEM,
    payer_a.SYSTEM,
    payer_b.SYSTEM,
    fax.SYSTEM,
    patient_portal.SYSTEM,
    scheduling.SYSTEM,
):
    register_system(_system)
