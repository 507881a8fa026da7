"""Prior-authorization templates: referrals on the EHR worklist, Payer A, the fax portal."""

from __future__ import annotations

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.prior_auth.auth_already_on_file import AuthAlreadyOnFile
from endstate.builtin.templates.prior_auth.auth_on_file import AuthOnFile
from endstate.builtin.templates.prior_auth.coordination_of_benefits import CoordinationOfBenefits
from endstate.builtin.templates.prior_auth.coverage_not_active import CoverageNotActive
from endstate.builtin.templates.prior_auth.facts import FAMILY
from endstate.builtin.templates.prior_auth.fax_request import FaxRequest
from endstate.builtin.templates.prior_auth.information_request import InformationRequest
from endstate.builtin.templates.prior_auth.policy_lookup import PolicyLookup, SiteOfService
from endstate.builtin.templates.prior_auth.portal_request import PortalRequest
from endstate.builtin.templates.prior_auth.portal_request_decoy import PortalRequestDecoy
from endstate.builtin.templates.prior_auth.wizard_request import WizardRequest

TEMPLATES: tuple[TaskTemplate, ...] = (
    AuthOnFile(),
    PolicyLookup(),
    PortalRequest(),
    FaxRequest(),
    CoverageNotActive(),
    PortalRequestDecoy(),
    AuthAlreadyOnFile(),
    WizardRequest(),
    SiteOfService(),
    InformationRequest(),
    CoordinationOfBenefits(),
)

__all__ = ["FAMILY", "TEMPLATES"]
