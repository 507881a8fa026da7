"""The systems endstate ships — the EHR, two payer portals, the fax service and the patient
portal — each a folder under `envs/systems/`, registered like any plug-in's, in the order of
the state document."""

from __future__ import annotations

from endstate.envs.registry import register_system
from endstate.envs.systems import ehr, fax, patient_portal, payer_a, payer_b

for _system in (ehr.SYSTEM, payer_a.SYSTEM, payer_b.SYSTEM, fax.SYSTEM, patient_portal.SYSTEM):
    register_system(_system)
